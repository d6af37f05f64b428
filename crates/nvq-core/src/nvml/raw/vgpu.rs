//! Running vGPUs through nvml-wrapper (`vgpu`, `vgpu -q`, `vgpu -s`,
//! `vgpu -c`): a vGPU host's vGPU types by name, and what is read of one
//! running vGPU (`nvmlVgpuInstance*`).

use super::{wrapped, Dev};
use crate::model::vgpu::{Instance, License};
use crate::nvml::NvmlCode;
use nvml_wrapper::enum_wrappers::vgpu::VmId;
use nvml_wrapper::vgpu::VgpuInstance;

/// The names of GPU `c`'s vGPU types (`nvmlVgpuTypeGetName` each): those it
/// can create now when `creatable` (`nvmlDeviceGetCreatableVgpus`), else
/// those it supports (`nvmlDeviceGetSupportedVgpus`).
pub fn vgpu_type_names(
    c: &Dev<'_>,
    creatable: bool,
) -> Result<Vec<Result<String, NvmlCode>>, NvmlCode> {
    wrapped(c, |d| {
        let types = if creatable {
            d.vgpu_creatable_types()
        } else {
            d.vgpu_supported_types()
        }?;
        Ok(types
            .iter()
            .map(|t| t.name().map_err(NvmlCode::from))
            .collect())
    })
}

/// What a vGPU's own `nvmlVgpuInstance*` calls through nvml-wrapper do not
/// give: its GPU's sample and buffer size, and the raw placement call.
pub struct VgpuExtra {
    /// Its share of its GPU's engines (its GPU's `nvmlDeviceGetVgpuUtilization` sample).
    pub utilization: Result<[u32; 4], NvmlCode>,
    /// Its placement (`nvmlVgpuInstanceGetPlacementId`).
    pub placement_id: Result<u32, NvmlCode>,
    /// Its GPU's accounting buffer size.
    pub accounting_buffer: Result<u32, NvmlCode>,
}

/// Running vGPU `id` of GPU `gpu`, read in full through its `nvmlVgpuInstance*` calls.
pub fn vgpu_instance(gpu: &Dev<'_>, id: u32, extra: VgpuExtra) -> Result<Instance, NvmlCode> {
    let d = super::wrapper(gpu)?;
    let v = VgpuInstance::new(id, &d);
    let c = NvmlCode::from;
    let vm_id = v.vm_id().map_err(c).map(|id| match id {
        VmId::Uuid(s) => (s, true),
        VmId::Domain(s) => (s, false),
    });
    let kind = v.instance_type().map_err(c);
    let mdev_uuid = v.mdev_uuid().map_err(c);
    Ok(Instance {
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
    })
}
