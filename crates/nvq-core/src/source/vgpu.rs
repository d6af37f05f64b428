//! `vgpu`, `vgpu -q`: each vGPU host GPU's running vGPUs, read in full
//! (`nvmlDeviceGetActiveVgpus`, the `nvmlVgpuInstance*` calls, the GPU's
//! `nvmlDeviceGetVgpuUtilization` samples), with the VM's name from its
//! hypervisor process ([`super::vgpu_vm`]).
//!
//! `vgpu -s` / `vgpu -c`: whether each selected GPU is a vGPU host
//! (`nvmlDeviceGetVirtualizationMode`) and, if so, the names of its vGPU
//! types, supported (`nvmlDeviceGetSupportedVgpus`) or creatable now
//! (`nvmlDeviceGetCreatableVgpus`), each by `nvmlVgpuTypeGetName`.

use super::procinfo::HostProc;
use super::vgpu_vm::{self, Wanted};
use crate::model::vgpu::{Active, Gpu, Host, HostGpu, Instance, License};
use crate::model::NvmlCode;
use crate::nvml::raw::{self, Dev};
use crate::nvml::Session;
use nvml_wrapper::enum_wrappers::device::GpuVirtualizationMode;
use nvml_wrapper::enum_wrappers::vgpu::VmId;
use nvml_wrapper::vgpu::VgpuInstance;
use nvml_wrapper::Device;

/// Which vGPU types to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Types {
    /// The vGPU types the GPU supports (`nvmlDeviceGetSupportedVgpus`).
    Supported,
    /// The vGPU types that can be created on the GPU now (`nvmlDeviceGetCreatableVgpus`).
    Creatable,
}

/// The vGPU state of the GPUs `devices`, with the vGPU types `types` of
/// each vGPU host GPU (`None`: only whether it is one; its list is empty).
pub fn gpus(session: &Session, devices: &[u32], types: Option<Types>) -> Vec<Gpu> {
    devices
        .iter()
        .map(|&index| match session.device(index) {
            Ok(d) => gpu(&d, types),
            Err(code) => Gpu {
                bus_id: String::new(),
                host: Host::Yes(Err(code)),
            },
        })
        .collect()
}

fn gpu(d: &Device<'_>, types: Option<Types>) -> Gpu {
    let bus_id = d.pci_info().map(|p| p.bus_id).unwrap_or_default();
    // A GPU that cannot say is no vGPU host to nvidia-smi either: only
    // the host modes list types.
    let host = matches!(
        d.virtualization_mode(),
        Ok(GpuVirtualizationMode::HostVgpu | GpuVirtualizationMode::HostVsga)
    );
    if !host {
        return Gpu {
            bus_id,
            host: Host::No,
        };
    }
    let list = match types {
        None => Ok(Vec::new()),
        Some(Types::Supported) => d.vgpu_supported_types(),
        Some(Types::Creatable) => d.vgpu_creatable_types(),
    };
    let names = list
        .map(|ts| {
            ts.iter()
                .map(|t| t.name().map_err(NvmlCode::from))
                .collect()
        })
        .map_err(NvmlCode::from);
    Gpu {
        bus_id,
        host: Host::Yes(names),
    }
}

/// The running vGPUs of the selected GPUs that are vGPU hosts (others are
/// left out), for `vgpu` and `vgpu -q`; their VMs are looked for among the
/// processes of `host` ([`vgpu_vm::scan`]), once for all of them.
pub fn active(session: &Session, devices: &[u32], host: Option<&HostProc>) -> Active {
    let mut gpus: Vec<HostGpu> = devices
        .iter()
        .filter_map(|&index| {
            let d = session.device(index).ok()?;
            let host = matches!(
                d.virtualization_mode(),
                Ok(GpuVirtualizationMode::HostVgpu | GpuVirtualizationMode::HostVsga)
            );
            host.then(|| host_gpu(session, index, &d))
        })
        .collect();
    if let Some(host) = host {
        name_vms(&mut gpus, host);
    }
    Active {
        driver: session.driver_version().map(str::to_string),
        driver_major: session.driver_major(),
        gpus,
    }
}

/// Fill in each vGPU's VM name (and its process's `-uuid`) from `host`.
fn name_vms(gpus: &mut [HostGpu], host: &HostProc) {
    let vgpus = || gpus.iter().flat_map(|g| g.vgpus.iter().flatten());
    let wanted: Vec<Wanted> = vgpus()
        .map(|v| Wanted {
            vm_id: v
                .vm_id
                .as_ref()
                .ok()
                .filter(|(_, u)| *u)
                .map(|(s, _)| s.clone()),
            mdev: v.mdev_uuid.as_ref().ok().cloned(),
        })
        .collect();
    let mut found = vgpu_vm::scan(host, &wanted).into_iter();
    for v in gpus.iter_mut().flat_map(|g| g.vgpus.iter_mut().flatten()) {
        if let Some(vm) = found.next().flatten() {
            v.vm_name = Some(vm.name);
            v.vm_process_uuid = vm.uuid;
        }
    }
}

fn host_gpu(session: &Session, index: u32, d: &Device<'_>) -> HostGpu {
    // SAFETY: the handle stays valid while the session lives; it is only passed back to NVML.
    let raw_dev = Dev::new(session, Ok(unsafe { d.handle() }));
    let samples = raw::vgpu_utilization(&raw_dev, 0);
    let buffer = d.accounting_buffer_size().map_err(NvmlCode::from);
    let vgpus = raw::active_vgpus(&raw_dev).map(|ids| {
        ids.into_iter()
            .map(|id| {
                let utilization = match &samples {
                    Ok(s) => s
                        .iter()
                        .find(|(v, _)| *v == id)
                        .map(|(_, u)| *u)
                        .ok_or(NvmlCode::NOT_FOUND),
                    Err(c) => Err(*c),
                };
                let placement_id = raw::vgpu_placement_id(&raw_dev, id);
                let extra = Extra {
                    utilization,
                    placement_id,
                    accounting_buffer: buffer,
                };
                instance(&VgpuInstance::new(id, d), id, extra)
            })
            .collect()
    });
    HostGpu {
        index,
        bus_id: d.pci_info().map(|p| p.bus_id).unwrap_or_default(),
        name: d.name().map_err(NvmlCode::from),
        gpu_util: d.utilization_rates().map(|u| u.gpu).map_err(NvmlCode::from),
        vgpus,
    }
}

/// What a vGPU's own `nvmlVgpuInstance*` calls through nvml-wrapper do not
/// give: its GPU's sample and buffer size, and the raw placement call.
struct Extra {
    utilization: Result<[u32; 4], NvmlCode>,
    placement_id: Result<u32, NvmlCode>,
    accounting_buffer: Result<u32, NvmlCode>,
}

fn instance(v: &VgpuInstance<'_>, id: u32, extra: Extra) -> Instance {
    let c = NvmlCode::from;
    let vm_id = v.vm_id().map_err(c).map(|id| match id {
        VmId::Uuid(s) => (s, true),
        VmId::Domain(s) => (s, false),
    });
    let kind = v.instance_type().map_err(c);
    let mdev_uuid = v.mdev_uuid().map_err(c);
    Instance {
        id,
        vm_name: None,
        vm_process_uuid: None,
        vm_id,
        type_id: kind.as_ref().map(|t| t.id()).map_err(|e| *e),
        type_name: kind
            .as_ref()
            .map_err(|e| *e)
            .and_then(|t| t.name().map_err(c)),
        fb_total: kind
            .as_ref()
            .map_err(|e| *e)
            .and_then(|t| t.framebuffer_size().map_err(c)),
        uuid: v.uuid().map_err(c),
        mdev_uuid,
        guest_driver: v.driver_version().map_err(c),
        license: v.license_info_v2().map_err(c).map(|l| License {
            state: l.state as u32,
            expiry: (l.expiry.status != 0).then(|| {
                let e = l.expiry;
                let small = [e.month, e.day, e.hour, e.min, e.sec].map(u32::from);
                [
                    u32::from(e.year),
                    small[0],
                    small[1],
                    small[2],
                    small[3],
                    small[4],
                ]
            }),
        }),
        gpu_instance_id: v.gpu_instance_id().map_err(c),
        placement_id: extra.placement_id,
        accounting_mode: v.accounting_mode().map_err(c),
        ecc_mode: v.ecc_mode().map_err(c),
        accounting_buffer: extra.accounting_buffer,
        frame_rate_limit: v.frame_rate_limit().map_err(c),
        pci_id: v.gpu_pci_id().map_err(c),
        fb_used: v.fb_usage().map_err(c),
        utilization: extra.utilization,
        encoder: v
            .encoder_stats()
            .map(|e| (e.session_count, e.average_fps, e.average_latency))
            .map_err(c),
        fbc: v
            .fbc_stats()
            .map(|f| (f.sessions_count, f.average_fps, f.average_latency))
            .map_err(c),
    }
}
