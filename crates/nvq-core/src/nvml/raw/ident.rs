//! Which device a handle is, through nvml-wrapper: its name, UUID, serial,
//! PCI identity and index; and the lookups of a handle by index, PCI bus id,
//! serial or UUID. The GPU context reads a GPU's identity here once a sample
//! (`source/gpu/ctx.rs`); `-i` (`nvml/select.rs`), MIG devices and a GPU's
//! peers read theirs here too.

use super::{wrapped, Dev};
use crate::nvml::{NvmlCode, Session};
use nvml_wrapper::struct_wrappers::device::PciInfo;
use nvml_wrapper::Nvml;

/// How many GPUs NVML lists (`nvmlDeviceGetCount_v2`).
pub fn device_count(session: &Session) -> Result<u32, NvmlCode> {
    session.nvml().device_count().map_err(NvmlCode::from)
}

/// The driver's version, `590.48.01` (`nvmlSystemGetDriverVersion`).
pub(crate) fn driver_version(nvml: &Nvml) -> Result<String, NvmlCode> {
    nvml.sys_driver_version().map_err(NvmlCode::from)
}

/// The NVML library's version, `13.590.48.01` (`nvmlSystemGetNVMLVersion`).
pub fn nvml_version(session: &Session) -> Result<String, NvmlCode> {
    session.nvml().sys_nvml_version().map_err(NvmlCode::from)
}

/// A device's product name (`nvmlDeviceGetName`).
pub fn name(c: &Dev<'_>) -> Result<String, NvmlCode> {
    wrapped(c, |d| d.name())
}

/// A device's UUID, `GPU-…` or `MIG-…` (`nvmlDeviceGetUUID`).
pub fn uuid(c: &Dev<'_>) -> Result<String, NvmlCode> {
    wrapped(c, |d| d.uuid())
}

/// A board's serial number (`nvmlDeviceGetSerial`).
pub fn serial(c: &Dev<'_>) -> Result<String, NvmlCode> {
    wrapped(c, |d| d.serial())
}

/// A device's PCI identity: bus id, domain, device and subsystem ids
/// (`nvmlDeviceGetPciInfo_v3`).
pub fn pci_info(c: &Dev<'_>) -> Result<PciInfo, NvmlCode> {
    wrapped(c, |d| d.pci_info())
}

/// A device's index in NVML's enumeration (`nvmlDeviceGetIndex`; a MIG
/// device's is its own).
pub fn index(c: &Dev<'_>) -> Result<u32, NvmlCode> {
    wrapped(c, |d| d.index())
}

/// What an `-i` id that is not an index names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookUp {
    /// A PCI bus id with its domain (`nvmlDeviceGetHandleByPciBusId_v2`).
    PciBusId,
    /// A board serial (`nvmlDeviceGetHandleBySerial`).
    Serial,
    /// A UUID (`nvmlDeviceGetHandleByUUID`).
    Uuid,
}

/// The device NVML finds by `id`, as `how` reads it.
pub fn look_up<'s>(session: &'s Session, how: LookUp, id: &str) -> Dev<'s> {
    let nvml = session.nvml();
    let found = match how {
        LookUp::PciBusId => nvml.device_by_pci_bus_id(id),
        // Deprecated because it fails on boards with two GPUs; `-i`'s scan
        // takes those.
        #[allow(deprecated)]
        LookUp::Serial => nvml.device_by_serial(id),
        LookUp::Uuid => nvml.device_by_uuid(id),
    };
    // SAFETY: a handle NVML handed out in this open session.
    Dev::new(
        session,
        found.map(|d| unsafe { d.handle() }).map_err(NvmlCode::from),
    )
}
