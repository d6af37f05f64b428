//! `--query-gpu`: one row per GPU.

mod collect;
mod ctx;

pub use collect::{collect, collect_rows, collect_targets, targets, Target};
pub use ctx::{GpuCtx, NA_SPELLING_CHANGED_IN};

use super::{FieldDef, FieldInfo, Value};
use crate::nvml::NvmlCode;

/// The getter of a `--query-gpu` field.
pub type Getter = for<'a, 'b> fn(&'a GpuCtx<'b>) -> Value;

const fn f(info: FieldInfo, get: Getter) -> FieldDef<Getter> {
    FieldDef { info, get }
}

/// Every `--query-gpu` field, in `--help-query-gpu` order.
pub static FIELDS: &[FieldDef<Getter>] = &[
    f(
        FieldInfo::new("timestamp", "When the sample was taken, as \"YYYY/MM/DD HH:MM:SS.msec\" in local time."),
        |c| Value::text(c.timestamp.clone()),
    ),
    f(
        FieldInfo::new("driver_version", "Version string of the installed NVIDIA driver."),
        |c| c.value(c.session.driver_version(), Value::text),
    ),
    f(
        FieldInfo::new("count", "How many GPUs the system has; the same on every row."),
        |c| Value::Int(i64::from(c.count)),
    ),
    f(
        FieldInfo::new("name", "The GPU's product name, as the board reports it.").aliases(&["gpu_name"]),
        |c| c.value(c.call(|d| d.name()), Value::text),
    ),
    f(
        FieldInfo::new("serial", "The serial number printed on the board; the same for every GPU of a multi-GPU board.")
            .aliases(&["gpu_serial"]),
        |c| c.value(c.call(|d| d.serial()), Value::text),
    ),
    f(
        FieldInfo::new("uuid", "The GPU's globally unique, immutable identifier (GPU-...). Not tied to the board serial.")
            .aliases(&["gpu_uuid"]),
        |c| c.value(c.call(|d| d.uuid()), Value::text),
    ),
    f(
        FieldInfo::new("index", "The GPU's zero-based position in NVML's enumeration; it may change across reboots."),
        |c| Value::Int(i64::from(c.index)),
    ),
    f(
        FieldInfo::new("pci.bus_id", "PCI address of the GPU as domain:bus:device.function, in hex.")
            .aliases(&["gpu_bus_id"]),
        |c| c.value(c.pci().map(|p| p.bus_id.clone()), Value::text),
    ),
    f(
        FieldInfo::new("memory.total", "Total memory installed on the GPU.")
            .unit("MiB")
            .heading("memory", "Readings of memory."),
        |c| c.value(c.memory().map(|m| m.total), Value::Bytes),
    ),
    f(
        FieldInfo::new("memory.reserved", "Memory the driver and firmware keep for themselves.")
            .unit("MiB"),
        |c| c.value(c.memory().map(|m| m.reserved), Value::Bytes),
    ),
    f(
        FieldInfo::new("memory.used", "Memory allocated by running contexts.")
            .unit("MiB"),
        |c| c.value(c.memory().map(|m| m.used), Value::Bytes),
    ),
    f(
        FieldInfo::new("memory.free", "Memory still available for allocation.")
            .unit("MiB"),
        |c| c.value(c.memory().map(|m| m.free), Value::Bytes),
    ),
    f(
        FieldInfo::new("utilization.gpu", "Share of the last sample period during which at least one kernel ran.")
            .aliases(&[])
            .unit("%")
            .heading("utilization", "Readings of utilization."),
        |c| c.value(c.utilization().map(|u| u.gpu), |v| Value::Int(i64::from(v))),
    ),
    f(
        FieldInfo::new("utilization.memory", "Share of the last sample period during which device memory was read or written.")
            .unit("%"),
        |c| c.value(c.utilization().map(|u| u.memory), |v| Value::Int(i64::from(v))),
    ),
    f(
        FieldInfo::new("temperature.gpu", "Core GPU temperature in degrees Celsius.")
            .heading("temperature", "Readings of temperature."),
        |c| {
            use nvml_wrapper::enum_wrappers::device::TemperatureSensor;
            c.value(c.call(|d| d.temperature(TemperatureSensor::Gpu)), |t| Value::Int(i64::from(t)))
        },
    ),
    f(
        FieldInfo::new("power.draw", "Power the whole board draws right now, in watts.")
            .unit("W")
            .heading("power_readings", "Readings of power readings."),
        |c| c.value(c.call(|d| d.power_usage()), Value::watts_from_mw),
    ),
];

/// A cell that failed for a reason other than NVML (kept for getters that
/// need a code of their own).
pub fn unsupported() -> Value {
    Value::err(NvmlCode::NOT_SUPPORTED)
}
