//! `vgpu -s` / `vgpu -c`: whether each selected GPU is a vGPU host
//! (`nvmlDeviceGetVirtualizationMode`) and, if so, the names of its vGPU
//! types, supported (`nvmlDeviceGetSupportedVgpus`) or creatable now
//! (`nvmlDeviceGetCreatableVgpus`), each by `nvmlVgpuTypeGetName`.

use crate::model::vgpu::{Gpu, Host};
use crate::model::NvmlCode;
use crate::nvml::Session;
use nvml_wrapper::enum_wrappers::device::GpuVirtualizationMode;
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
