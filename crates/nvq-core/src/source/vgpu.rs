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
use crate::model::vgpu::{Active, Gpu, Host, HostGpu};
use crate::model::NvmlCode;
use crate::nvml::raw::{self, VgpuExtra};
use crate::nvml::Session;
use crate::source::gpu::{read, GpuCtx};
use nvml_wrapper::enum_wrappers::device::GpuVirtualizationMode;

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
        .map(|&index| {
            // The GPU count is no part of the vGPU views.
            let c = GpuCtx::new(session, index, 0);
            match c.handle() {
                Ok(_) => gpu(&c, types),
                Err(code) => Gpu {
                    bus_id: String::new(),
                    host: Host::Yes(Err(code)),
                },
            }
        })
        .collect()
}

/// Is the GPU a vGPU host? One that cannot say is no vGPU host to
/// nvidia-smi either: only the host modes list types.
fn is_host(c: &GpuCtx<'_>) -> bool {
    matches!(
        read::virtualization_mode(c),
        Ok(GpuVirtualizationMode::HostVgpu | GpuVirtualizationMode::HostVsga)
    )
}

fn gpu(c: &GpuCtx<'_>, types: Option<Types>) -> Gpu {
    let bus_id = c.bus_id().unwrap_or_default().to_string();
    let host = is_host(c);
    if !host {
        return Gpu {
            bus_id,
            host: Host::No,
        };
    }
    let names = match types {
        None => Ok(Vec::new()),
        Some(Types::Supported) => raw::vgpu_type_names(&c.raw(), false),
        Some(Types::Creatable) => raw::vgpu_type_names(&c.raw(), true),
    };
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
            let c = GpuCtx::new(session, index, 0);
            c.handle().ok()?;
            is_host(&c).then(|| host_gpu(&c))
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

fn host_gpu(c: &GpuCtx<'_>) -> HostGpu {
    let raw_dev = c.raw();
    let samples = raw::vgpu_utilization(&raw_dev, 0);
    let buffer = read::accounting_buffer_size(c);
    let vgpus = raw::active_vgpus(&raw_dev).and_then(|ids| {
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
                let extra = VgpuExtra {
                    utilization,
                    placement_id,
                    accounting_buffer: buffer,
                };
                raw::vgpu_instance(&raw_dev, id, extra)
            })
            .collect()
    });
    HostGpu {
        index: c.index,
        bus_id: c.bus_id().unwrap_or_default().to_string(),
        name: c.name().map(str::to_string),
        gpu_util: c.utilization().map(|u| u.gpu),
        vgpus,
    }
}
