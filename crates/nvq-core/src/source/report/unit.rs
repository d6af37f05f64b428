//! The unit report (`-q -u`): S-class enclosures through NVML's unit
//! queries (`nvmlUnitGetCount`, `...GetUnitInfo`, `...GetLedState`,
//! `...GetTemperature`, `...GetPsuInfo`, `...GetFanSpeedInfo`,
//! `...GetDevices`) and the host interface cards (`nvmlSystemGetHicVersion`).
//!
//! No public capture of a unit report was found: the labels and element
//! names follow nvidia-smi's manual page (UNIT ATTRIBUTES: the fan state is
//! "NORMAL" or "FAILED", the LED color "GREEN" or "AMBER") and are
//! unverified, except `hic_info` with its `<hic id="N"><firmware>`,
//! `attached_units` and the `nvsmi_unit` DTD, which public code that parses
//! the document names.

use crate::model::report::{Hic, Node, UnitBlock, UnitReport, View};
use crate::model::{NvmlCode, Value};
use crate::nvml::Session;
use nvml_wrapper::enum_wrappers::unit::FanState;
use nvml_wrapper::enums::unit::{LedState, TemperatureReading};
use nvml_wrapper::Unit;

fn value<T>(r: Result<T, nvml_wrapper::error::NvmlError>, f: impl FnOnce(T) -> Value) -> Value {
    match r {
        Ok(v) => f(v),
        Err(e) => Value::err(NvmlCode::from(&e)),
    }
}

fn uint(v: u32) -> Value {
    Value::Int(i64::from(v))
}

/// The units NVML sees.
pub fn unit_count(session: &Session) -> Result<u32, NvmlCode> {
    session.nvml().unit_count().map_err(|e| NvmlCode::from(&e))
}

/// The report for the units of these indices.
pub fn collect(session: &Session, indices: &[u32], view: View) -> UnitReport {
    let now = std::time::SystemTime::now();
    let hics = session.nvml().hic_versions().map(|cards| {
        cards
            .into_iter()
            .map(|h| Hic {
                id: h.id,
                firmware: Value::text(h.firmware_version),
            })
            .collect()
    });
    let hics = hics.map_err(|e| Value::err(NvmlCode::from(&e)));
    let units = indices
        .iter()
        .map(|&id| UnitBlock {
            id,
            items: match session.nvml().unit_by_index(id) {
                Ok(u) => unit_items(&u),
                Err(e) => vec![Node::entry(
                    "Error",
                    "error",
                    Value::err(NvmlCode::from(&e)),
                    "",
                )],
            },
        })
        .collect();
    UnitReport {
        header: super::header(session, now, view),
        hics,
        attached: unit_count(session).unwrap_or(0),
        units,
    }
}

fn unit_items(u: &Unit<'_>) -> Vec<Node> {
    let info = u.info();
    let text = |pick: fn(&nvml_wrapper::struct_wrappers::unit::UnitInfo) -> &str| match &info {
        Ok(i) => Value::text(pick(i)),
        Err(e) => Value::err(NvmlCode::from(e)),
    };
    let led = u.led_state();
    let (color, cause) = match led {
        Ok(LedState::Green) => (Value::text("GREEN"), Value::text("")),
        Ok(LedState::Amber(why)) => (Value::text("AMBER"), Value::text(why)),
        Err(e) => {
            let code = NvmlCode::from(&e);
            (Value::err(code), Value::err(code))
        }
    };
    let temp = |t| value(u.temperature(t), uint);
    let psu = u.psu_info();
    let psu_value = |pick: fn(&nvml_wrapper::struct_wrappers::unit::PsuInfo) -> Value| match &psu {
        Ok(p) => pick(p),
        Err(e) => Value::err(NvmlCode::from(e)),
    };
    let fans = match u.fan_info() {
        Ok(f) => Node::section(
            "Fan Info",
            "fan_info",
            // nvml-wrapper returns all 24 slots; `count` says how many hold a fan.
            f.fans
                .iter()
                .take(f.count as usize)
                .map(|fan| {
                    let state = match fan.state {
                        FanState::Normal => "NORMAL",
                        FanState::Failed => "FAILED",
                    };
                    Node::section(
                        "Fan",
                        "fan",
                        vec![
                            Node::entry("State", "fan_state", Value::text(state), ""),
                            Node::entry("Speed", "fan_speed", uint(fan.speed), " RPM"),
                        ],
                    )
                })
                .collect(),
        ),
        Err(e) => Node::collapsed("Fan Info", "fan_info", Value::err(NvmlCode::from(&e))),
    };
    let gpus = match u.devices() {
        Ok(devs) => Node::section(
            "Attached GPUs",
            "attached_gpus",
            devs.iter()
                .map(|d| {
                    let id = value(d.pci_info(), |p| Value::text(p.bus_id));
                    Node::entry("PCI Bus Id", "pci_bus_id", id, "")
                })
                .collect(),
        ),
        Err(e) => Node::collapsed(
            "Attached GPUs",
            "attached_gpus",
            Value::err(NvmlCode::from(&e)),
        ),
    };
    vec![
        Node::entry("Product Name", "product_name", text(|i| &i.name), ""),
        Node::entry("Product Id", "product_id", text(|i| &i.id), ""),
        Node::entry("Product Serial", "product_serial", text(|i| &i.serial), ""),
        Node::entry(
            "Firmware Version",
            "firmware_version",
            text(|i| &i.firmware_version),
            "",
        ),
        Node::section(
            "LED State",
            "led_state",
            vec![
                Node::entry("Color", "color", color, ""),
                Node::entry("Cause", "cause", cause, ""),
            ],
        ),
        Node::section(
            "Temperature",
            "temperature",
            vec![
                Node::entry("Intake", "intake", temp(TemperatureReading::Intake), " C"),
                Node::entry(
                    "Exhaust",
                    "exhaust",
                    temp(TemperatureReading::Exhaust),
                    " C",
                ),
                Node::entry("Board", "board", temp(TemperatureReading::Board), " C"),
            ],
        ),
        Node::section(
            "PSU",
            "psu",
            vec![
                Node::entry(
                    "State",
                    "psu_state",
                    psu_value(|p| Value::text(p.state.clone())),
                    "",
                ),
                Node::entry(
                    "Voltage",
                    "psu_voltage",
                    psu_value(|p| uint(p.voltage)),
                    " V",
                ),
                Node::entry(
                    "Current",
                    "psu_current",
                    psu_value(|p| uint(p.current)),
                    " A",
                ),
                Node::entry(
                    "Power Draw",
                    "psu_power_draw",
                    psu_value(|p| uint(p.power_draw)),
                    " W",
                ),
            ],
        ),
        fans,
        gpus,
    ]
}
