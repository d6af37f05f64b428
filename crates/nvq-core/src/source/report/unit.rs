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
use crate::nvml::raw::{self, UnitRead};
use crate::nvml::Session;
use nvml_wrapper::enum_wrappers::unit::FanState;
use nvml_wrapper::enums::unit::LedState;

fn value<T>(r: Result<T, NvmlCode>, f: impl FnOnce(T) -> Value) -> Value {
    match r {
        Ok(v) => f(v),
        Err(code) => Value::err(code),
    }
}

fn uint(v: u32) -> Value {
    Value::Int(i64::from(v))
}

/// The units NVML sees.
pub fn unit_count(session: &Session) -> Result<u32, NvmlCode> {
    raw::unit_count(session)
}

/// The report for the units of these indices.
pub fn collect(session: &Session, indices: &[u32], view: View) -> UnitReport {
    let now = std::time::SystemTime::now();
    let hics = raw::hic_versions(session).map(|cards| {
        cards
            .into_iter()
            .map(|h| Hic {
                id: h.id,
                firmware: Value::text(h.firmware_version),
            })
            .collect()
    });
    let hics = hics.map_err(Value::err);
    let units = indices
        .iter()
        .map(|&id| UnitBlock {
            id,
            items: match raw::unit(session, id) {
                Ok(u) => unit_items(u),
                Err(code) => vec![Node::entry("Error", "error", Value::err(code), "")],
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

/// The temperature lines' labels and XML elements, in the order of
/// [`UnitRead::temperatures`].
const TEMPERATURES: [(&str, &str); 3] = [
    ("Intake", "intake"),
    ("Exhaust", "exhaust"),
    ("Board", "board"),
];

fn unit_items(u: UnitRead) -> Vec<Node> {
    let info = u.info;
    let text = |pick: fn(&nvml_wrapper::struct_wrappers::unit::UnitInfo) -> &str| match &info {
        Ok(i) => Value::text(pick(i)),
        Err(code) => Value::err(*code),
    };
    let (color, cause) = match u.led {
        Ok(LedState::Green) => (Value::text("GREEN"), Value::text("")),
        Ok(LedState::Amber(why)) => (Value::text("AMBER"), Value::text(why)),
        Err(code) => (Value::err(code), Value::err(code)),
    };
    let psu = u.psu;
    let psu_value = |pick: fn(&nvml_wrapper::struct_wrappers::unit::PsuInfo) -> Value| match &psu {
        Ok(p) => pick(p),
        Err(code) => Value::err(*code),
    };
    let fans = match u.fans {
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
        Err(code) => Node::collapsed("Fan Info", "fan_info", Value::err(code)),
    };
    let gpus = match u.gpu_bus_ids {
        Ok(ids) => Node::section(
            "Attached GPUs",
            "attached_gpus",
            ids.into_iter()
                .map(|id| Node::entry("PCI Bus Id", "pci_bus_id", value(id, Value::text), ""))
                .collect(),
        ),
        Err(code) => Node::collapsed("Attached GPUs", "attached_gpus", Value::err(code)),
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
            TEMPERATURES
                .iter()
                .zip(u.temperatures)
                .map(|(&(label, xml), t)| Node::entry(label, xml, value(t, uint), " C"))
                .collect(),
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
