//! A device's PCI identity as NVML's struct: what `nvmlDeviceGetPciInfo*` answer and what its
//! NVLink peers report as their remote end (`topo`).

use crate::call::{fill_chars, NOT_SUPPORTED, R};
use crate::scenario::Device;
use nvml_wrapper_sys::bindings::nvmlPciInfo_t;

/// A device's `nvmlPciInfo_t` (also what its NVLink peers report).
pub(crate) fn pci_struct(d: &Device) -> R<nvmlPciInfo_t> {
    let p = &d.pci;
    let bus_id = d.bus_id().ok_or(NOT_SUPPORTED)?;
    let mut v = nvmlPciInfo_t {
        busIdLegacy: [0; 16],
        domain: p.domain.ok_or(NOT_SUPPORTED)?,
        bus: p.bus.ok_or(NOT_SUPPORTED)?,
        device: p.device.ok_or(NOT_SUPPORTED)?,
        pciDeviceId: p.device_id.unwrap_or(0),
        pciSubSystemId: p.subsystem_id.unwrap_or(0),
        busId: [0; 32],
    };
    let legacy = format!("{:04X}:{:02X}:{:02X}.0", v.domain, v.bus, v.device);
    fill_chars(&mut v.busIdLegacy, &legacy);
    fill_chars(&mut v.busId, &bus_id);
    Ok(v)
}
