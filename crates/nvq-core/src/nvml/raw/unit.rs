//! S-class units through nvml-wrapper (`-q -u`): how many there are, the
//! host interface cards, and what is read of one unit (its info, LED, PSU,
//! fans, temperatures and its GPUs' PCI bus ids).

use super::Dev;
use crate::nvml::{NvmlCode, Session};
use nvml_wrapper::enums::unit::{LedState, TemperatureReading};
use nvml_wrapper::struct_wrappers::unit::{FansInfo, HwbcEntry, PsuInfo, UnitInfo};

/// The units NVML sees (`nvmlUnitGetCount`).
pub fn unit_count(session: &Session) -> Result<u32, NvmlCode> {
    session.nvml().unit_count().map_err(NvmlCode::from)
}

/// The host interface cards and their firmware (`nvmlSystemGetHicVersion`).
pub fn hic_versions(session: &Session) -> Result<Vec<HwbcEntry>, NvmlCode> {
    session.nvml().hic_versions().map_err(NvmlCode::from)
}

/// What the unit report shows of one unit, each read with its own code.
pub struct UnitRead {
    /// Its product name, id, serial and firmware (`nvmlUnitGetUnitInfo`).
    pub info: Result<UnitInfo, NvmlCode>,
    /// Its LED's color and cause (`nvmlUnitGetLedState`).
    pub led: Result<LedState, NvmlCode>,
    /// Its power supply (`nvmlUnitGetPsuInfo`).
    pub psu: Result<PsuInfo, NvmlCode>,
    /// Its fans (`nvmlUnitGetFanSpeedInfo`).
    pub fans: Result<FansInfo, NvmlCode>,
    /// Its GPUs' PCI bus ids (`nvmlUnitGetDevices`, then each one's PCI info).
    pub gpu_bus_ids: Result<Vec<Result<String, NvmlCode>>, NvmlCode>,
    /// Its intake, exhaust and board temperatures in °C (`nvmlUnitGetTemperature`).
    pub temperatures: [Result<u32, NvmlCode>; 3],
}

/// Read unit `index` (`nvmlUnitGetHandleByIndex`), or why it cannot be.
pub fn unit(session: &Session, index: u32) -> Result<UnitRead, NvmlCode> {
    let u = session
        .nvml()
        .unit_by_index(index)
        .map_err(NvmlCode::from)?;
    let code = NvmlCode::from;
    Ok(UnitRead {
        info: u.info().map_err(code),
        led: u.led_state().map_err(code),
        psu: u.psu_info().map_err(code),
        fans: u.fan_info().map_err(code),
        gpu_bus_ids: u.devices().map_err(code).map(|devs| {
            devs.iter()
                .map(|d| super::pci_info(&Dev::of(session, d)).map(|p| p.bus_id))
                .collect()
        }),
        temperatures: [
            TemperatureReading::Intake,
            TemperatureReading::Exhaust,
            TemperatureReading::Board,
        ]
        .map(|t| u.temperature(t).map_err(code)),
    })
}
