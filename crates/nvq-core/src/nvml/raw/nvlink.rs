//! A GPU's NVLinks through nvml-wrapper: whether a link is active, its
//! capabilities, its error counters and the PCI bus id at its far end
//! (`nvlink`, and `topo -m`'s NVLink bonds).

use super::{wrapped, Dev};
use crate::nvml::NvmlCode;
use nvml_wrapper::enum_wrappers::nv_link::{Capability, ErrorCounter};

/// Is link `link` active (`nvmlDeviceGetNvLinkState`)?
pub fn link_active(c: &Dev<'_>, link: u32) -> Result<bool, NvmlCode> {
    wrapped(c, |d| d.link_wrapper_for(link).is_active())
}

/// Has link `link` capability `cap` (`nvmlDeviceGetNvLinkCapability`)?
pub fn link_capability(c: &Dev<'_>, link: u32, cap: Capability) -> Result<bool, NvmlCode> {
    wrapped(c, |d| d.link_wrapper_for(link).has_capability(cap))
}

/// Link `link`'s error counter `counter` (`nvmlDeviceGetNvLinkErrorCounter`).
pub fn link_error_counter(c: &Dev<'_>, link: u32, counter: ErrorCounter) -> Result<u64, NvmlCode> {
    wrapped(c, |d| d.link_wrapper_for(link).error_counter(counter))
}

/// The PCI bus id of what is at the far end of link `link`, as NVML spells
/// it (`nvmlDeviceGetNvLinkRemotePciInfo_v2`).
pub fn link_remote_bus_id(c: &Dev<'_>, link: u32) -> Result<String, NvmlCode> {
    wrapped(c, |d| d.link_wrapper_for(link).remote_pci_info()).map(|p| p.bus_id)
}
