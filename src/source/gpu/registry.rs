//! The `--query-gpu` field table: every field nvidia-smi 610 lists (plus the
//! two `reset_status.*` fields of 535), in `--help-query-gpu` order.
//!
//! Generated once from the field list, then maintained by hand: one entry per
//! field, holding its name, aliases, header unit, help text (nvq's own words),
//! help section and getter.

use super::{get, FvFmt, Get};
use crate::model::{FieldDef, FieldInfo, FieldKind, Value};
use nvml_wrapper::enum_wrappers::device::{Clock, InfoRom, MemoryLocation as Loc, RetirementCause};
use nvml_wrapper::enum_wrappers::device::{EccCounter::*, MemoryError::*};
use nvml_wrapper_sys::bindings::{
    nvmlClocksEventReasonApplicationsClocksSetting, nvmlClocksEventReasonGpuIdle,
    nvmlClocksEventReasonSwPowerCap, nvmlClocksEventReasonSwThermalSlowdown,
    nvmlClocksEventReasonSyncBoost, nvmlClocksThrottleReasonHwPowerBrakeSlowdown,
    nvmlClocksThrottleReasonHwSlowdown, nvmlClocksThrottleReasonHwThermalSlowdown,
};

/// NVML field ids (`nvmlDeviceGetFieldValues`), in nvml-wrapper's numbering
/// (the raw layer translates them for drivers from 580.82 on).
mod fi {
    pub use nvml_wrapper_sys::bindings::field_id::*;
    /// `NVML_FI_DEV_EDPP_MULTIPLIER`, newer than nvml-wrapper-sys 0.10.
    pub const EDPP_MULTIPLIER: u32 = 274;
}

/// NVML's vGPU capability indices (`nvmlDeviceVgpuCapability_t`,
/// `nvmlVgpuDriverCapability_t`).
mod cap {
    use nvml_wrapper_sys::bindings as b;
    pub const FRACTIONAL_MULTI_VGPU: u32 =
        b::nvmlDeviceVgpuCapability_enum_NVML_DEVICE_VGPU_CAP_FRACTIONAL_MULTI_VGPU;
    pub const HETEROGENEOUS_TIMESLICE_PROFILES: u32 =
        b::nvmlDeviceVgpuCapability_enum_NVML_DEVICE_VGPU_CAP_HETEROGENEOUS_TIMESLICE_PROFILES;
    pub const HETEROGENEOUS_TIMESLICE_SIZES: u32 =
        b::nvmlDeviceVgpuCapability_enum_NVML_DEVICE_VGPU_CAP_HETEROGENEOUS_TIMESLICE_SIZES;
    pub const HOMOGENEOUS_PLACEMENTS: u32 =
        b::nvmlDeviceVgpuCapability_enum_NVML_DEVICE_VGPU_CAP_HOMOGENEOUS_PLACEMENTS;
    pub const MIG_TIMESLICING_ENABLED: u32 =
        b::nvmlDeviceVgpuCapability_enum_NVML_DEVICE_VGPU_CAP_MIG_TIMESLICING_ENABLED;
    pub const MIG_TIMESLICING_SUPPORTED: u32 =
        b::nvmlDeviceVgpuCapability_enum_NVML_DEVICE_VGPU_CAP_MIG_TIMESLICING_SUPPORTED;
    pub const DRIVER_HETEROGENEOUS_MULTI_VGPU: u32 =
        b::nvmlVgpuDriverCapability_enum_NVML_VGPU_DRIVER_CAP_HETEROGENEOUS_MULTI_VGPU;
}

const fn f(info: FieldInfo, get: Get) -> FieldDef<Get> {
    FieldDef { info, get }
}

/// A field value (`nvmlDeviceGetFieldValues`) of the GPU.
const fn gpu_fv(id: u32, fmt: FvFmt) -> Get {
    Get::Field { id, scope: 0, fmt }
}

/// A field value of the module the GPU sits on (scope 1: the whole board).
const fn module_fv(id: u32, fmt: FvFmt) -> Get {
    Get::Field { id, scope: 1, fmt }
}

/// Drivers before 535 named the clock event reasons `clocks_throttle_reasons.*`.
const EVENT_REASONS_RENAMED_IN: u32 = 535;

/// Every `--query-gpu` field, in `--help-query-gpu` order.
pub static FIELDS: &[FieldDef<Get>] = &[
    f(
        FieldInfo::new(
            "timestamp",
            "When this row was read, as \"YYYY/MM/DD HH:MM:SS.mmm\" in local time.",
        )
        .timestamp(),
        Get::Fn(|c| Value::text(c.timestamp())),
    ),
    f(
        FieldInfo::new(
            "timestamp.epoch",
            "When this row was read, in seconds since 1970-01-01 UTC with milliseconds \
             (1764620000.123): for plotting and for joining logs across time zones.",
        )
        .timestamp()
        .extension(),
        Get::Fn(|c| crate::source::time::epoch_value(c.taken)),
    ),
    f(
        FieldInfo::new(
            "driver_version",
            "Version string of the installed NVIDIA driver.",
        ),
        Get::Fn(get::driver_version),
    ),
    f(
        FieldInfo::new(
            "kmd_version",
            "Version string of the kernel-mode part of the NVIDIA driver (newer name of \
             driver_version).",
        ),
        Get::Fn(get::driver_version),
    ),
    f(
        FieldInfo::new(
            "vgpu_driver_capability.heterogenous_multivGPU",
            "Yes when the driver can run vGPUs of different profiles side by side on one GPU.",
        )
        .heading(
            "vgpu_driver_capability",
            "Capabilities of the installed driver for virtual GPUs (vGPU host drivers only).",
        ),
        Get::Fn(|c| get::vgpu_driver_cap(c, cap::DRIVER_HETEROGENEOUS_MULTI_VGPU)),
    ),
    f(
        FieldInfo::new(
            "count",
            "How many GPUs NVML sees; the same value on every row.",
        )
        .kind(FieldKind::GpuCount)
        .metric("gpus"),
        Get::Fn(|c| Value::Int(i64::from(c.count))),
    ),
    f(
        FieldInfo::new(
            "name",
            "Product name of the GPU, as the board reports it.",
        )
        .aliases(&["gpu_name"]),
        Get::Fn(get::name),
    ),
    f(
        FieldInfo::new(
            "serial",
            "Serial number printed on the board. All GPUs of a multi-GPU board share it.",
        )
        .aliases(&["gpu_serial"]),
        Get::Fn(get::serial),
    ),
    f(
        FieldInfo::new(
            "uuid",
            "Globally unique identifier of the GPU (\"GPU-\" and 32 hex digits); it never \
             changes and is unrelated to the board serial.",
        )
        .aliases(&["gpu_uuid"]),
        Get::Fn(get::uuid),
    ),
    f(
        FieldInfo::new(
            "pci.bus_id",
            "PCI address of the GPU as domain:bus:device.function, in hexadecimal.",
        )
        .aliases(&["gpu_bus_id"]),
        Get::Fn(get::pci_bus_id),
    ),
    f(
        FieldInfo::new(
            "pci.domain",
            "PCI domain of the GPU, in hexadecimal.",
        ),
        Get::Fn(|c| get::pci_hex(c, |p| format!("0x{:04X}", p.domain))),
    ),
    f(
        FieldInfo::new(
            "pci.bus",
            "PCI bus number of the GPU, in hexadecimal.",
        ),
        Get::Fn(|c| get::pci_hex(c, |p| format!("0x{:02X}", p.bus))),
    ),
    f(
        FieldInfo::new(
            "pci.device",
            "PCI device number of the GPU, in hexadecimal.",
        ),
        Get::Fn(|c| get::pci_hex(c, |p| format!("0x{:02X}", p.device))),
    ),
    f(
        FieldInfo::new(
            "pci.baseClass",
            "PCI base class code of the GPU, in hexadecimal.",
        ),
        Get::Fn(|c| get::pci_class(c, false)),
    ),
    f(
        FieldInfo::new(
            "pci.subClass",
            "PCI sub-class code of the GPU, in hexadecimal.",
        ),
        Get::Fn(|c| get::pci_class(c, true)),
    ),
    f(
        FieldInfo::new(
            "pci.device_id",
            "PCI device id and vendor id of the GPU as one 32-bit hexadecimal number.",
        ),
        Get::Fn(|c| get::pci_hex(c, |p| format!("0x{:08X}", p.pci_device_id))),
    ),
    f(
        FieldInfo::new(
            "pci.sub_device_id",
            "PCI subsystem id of the board as one 32-bit hexadecimal number.",
        ),
        Get::Fn(get::pci_sub_device_id),
    ),
    f(
        FieldInfo::new(
            "vgpu_device_capability.fractional_multiVgpu",
            "Yes when fractional vGPU profiles can be mixed with others on this GPU.",
        )
        .heading(
            "vgpu_device_capability",
            "Capabilities of this GPU for virtual GPUs (vGPU host drivers only).",
        ),
        Get::Fn(|c| get::vgpu_device_cap(c, cap::FRACTIONAL_MULTI_VGPU)),
    ),
    f(
        FieldInfo::new(
            "vgpu_device_capability.heterogeneous_timeSlice_profile",
            "Yes when time-sliced vGPUs of different profiles can share this GPU.",
        ),
        Get::Fn(|c| get::vgpu_device_cap(c, cap::HETEROGENEOUS_TIMESLICE_PROFILES)),
    ),
    f(
        FieldInfo::new(
            "vgpu_device_capability.heterogeneous_timeSlice_sizes",
            "Yes when time-sliced vGPUs of different frame buffer sizes can share this GPU.",
        ),
        Get::Fn(|c| get::vgpu_device_cap(c, cap::HETEROGENEOUS_TIMESLICE_SIZES)),
    ),
    f(
        FieldInfo::new(
            "vgpu_device_capability.homogeneous_placements",
            "Yes when vGPUs of one profile can be placed at fixed positions on this GPU.",
        ),
        Get::Fn(|c| get::vgpu_device_cap(c, cap::HOMOGENEOUS_PLACEMENTS)),
    ),
    f(
        FieldInfo::new(
            "vgpu_device_capability.mig_timeSlicing",
            "Yes when vGPUs can be time-sliced inside a MIG instance of this GPU.",
        ),
        Get::Fn(|c| get::vgpu_device_cap(c, cap::MIG_TIMESLICING_SUPPORTED)),
    ),
    f(
        FieldInfo::new(
            "vgpu_device_capability.mig_timeSlicing_mode",
            "Yes when time slicing inside MIG instances is switched on for this GPU.",
        ),
        Get::Fn(|c| get::vgpu_device_cap(c, cap::MIG_TIMESLICING_ENABLED)),
    ),
    f(
        FieldInfo::new(
            "pcie.link.gen.current",
            "PCIe generation the link runs at right now; it may drop while the GPU idles.",
        ),
        Get::Fn(get::pcie_gen_current),
    ),
    f(
        FieldInfo::new(
            "pcie.link.gen.gpucurrent",
            "PCIe generation the GPU side of the link runs at right now.",
        ),
        Get::Fn(get::pcie_gen_current),
    ),
    f(
        FieldInfo::new(
            "pcie.link.gen.max",
            "Highest PCIe generation this GPU and this slot can use together.",
        ),
        Get::Fn(get::pcie_gen_max),
    ),
    f(
        FieldInfo::new(
            "pcie.link.gen.gpumax",
            "Highest PCIe generation the GPU itself supports.",
        ),
        Get::Fn(get::pcie_gen_gpumax),
    ),
    f(
        FieldInfo::new(
            "pcie.link.gen.hostmax",
            "Highest PCIe generation the host side of the link supports. (nvq has no NVML source \
             for this value yet and prints [N/A].)",
        ),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "pcie.link.width.current",
            "Number of PCIe lanes the link uses right now; it may shrink while the GPU idles.",
        ),
        Get::Fn(get::pcie_width_current),
    ),
    f(
        FieldInfo::new(
            "pcie.link.width.max",
            "Highest number of PCIe lanes this GPU and this slot can use together.",
        ),
        Get::Fn(get::pcie_width_max),
    ),
    f(
        FieldInfo::new(
            "index",
            "Position of the GPU in NVML's enumeration, from 0. It can change between boots.",
        )
        .kind(FieldKind::GpuIndex),
        Get::Fn(|c| Value::Int(i64::from(c.index))),
    ),
    f(
        FieldInfo::new(
            "display_mode",
            "Whether a display is connected to the GPU (Enabled/Disabled). Drivers from 590 on \
             report this field as deprecated.",
        ),
        Get::Fn(get::display_mode),
    ),
    f(
        FieldInfo::new(
            "display_attached",
            "Yes when a monitor is physically connected to one of the GPU's outputs.",
        ),
        Get::Fn(get::display_attached),
    ),
    f(
        FieldInfo::new(
            "display_active",
            "Enabled when the GPU has a display set up (memory allocated for it), with or \
             without a monitor attached.",
        ),
        Get::Fn(get::display_active),
    ),
    f(
        FieldInfo::new(
            "persistence_mode",
            "Enabled when the driver stays loaded with no client attached, which makes starting \
             GPU programs faster. Linux only.",
        ),
        Get::Fn(get::persistence_mode),
    ),
    f(
        FieldInfo::new(
            "addressing_mode",
            "How the GPU reaches memory allocated by the CPU: \"HMM\" (the driver mirrors the \
             CPU page tables), \"ATS\" (the GPU uses the CPU page tables directly) or \"None\". \
             Linux only.",
        ),
        Get::Fn(get::addressing_mode),
    ),
    f(
        FieldInfo::new(
            "accounting.mode",
            "Enabled when the driver keeps per-process usage records (see \
             --help-query-accounted-apps).",
        ),
        Get::Fn(get::accounting_mode),
    ),
    f(
        FieldInfo::new(
            "accounting.buffer_size",
            "How many processes the accounting records can hold before the oldest ones are \
             overwritten.",
        ),
        Get::Fn(get::accounting_buffer_size),
    ),
    f(
        FieldInfo::new(
            "driver_model.current",
            "Windows driver model in use now (WDDM, TCC or MCDM). Not available on Linux.",
        )
        .heading(
            "driver_model",
            "Windows driver model of the GPU: WDDM for graphics, TCC or MCDM for compute. A \
             switch takes effect after a reboot. Linux has a single driver model, so these \
             fields are not available there.",
        ),
        Get::Fn(|c| get::driver_model(c, false)),
    ),
    f(
        FieldInfo::new(
            "driver_model.pending",
            "Windows driver model that takes over after the next reboot. Not available on Linux.",
        ),
        Get::Fn(|c| get::driver_model(c, true)),
    ),
    f(
        FieldInfo::new(
            "vbios_version",
            "Version of the video BIOS on the board.",
        ),
        Get::Fn(get::vbios_version),
    ),
    f(
        FieldInfo::new(
            "inforom.img",
            "Version of the whole inforom image, which identifies exactly what was flashed on \
             the board.",
        )
        .aliases(&["inforom.image"])
        .heading(
            "inforom",
            "Versions of the data stored in the board's inforom, a small persistent memory \
             holding configuration and error records. Some features need a minimum inforom \
             version.",
        ),
        Get::Fn(get::inforom_image),
    ),
    f(
        FieldInfo::new(
            "inforom.oem",
            "Version of the OEM configuration data in the inforom.",
        ),
        Get::Fn(|c| get::inforom(c, InfoRom::OEM)),
    ),
    f(
        FieldInfo::new(
            "inforom.ecc",
            "Version of the ECC error records in the inforom.",
        ),
        Get::Fn(|c| get::inforom(c, InfoRom::ECC)),
    ),
    f(
        FieldInfo::new(
            "inforom.pwr",
            "Version of the power management data in the inforom.",
        )
        .aliases(&["inforom.power"]),
        Get::Fn(|c| get::inforom(c, InfoRom::Power)),
    ),
    f(
        FieldInfo::new(
            "reset_status.reset_required",
            "Yes when the GPU must be reset before it can be used again.",
        )
        .heading(
            "reset_status",
            "Whether the GPU needs a reset, or a drain and a reset, to leave a bad state (older \
             drivers only).",
        ),
        gpu_fv(fi::NVML_FI_DEV_RESET_STATUS, FvFmt::YesNo),
    ),
    f(
        FieldInfo::new(
            "reset_status.drain_and_reset_recommended",
            "Yes when the driver advises moving work off the GPU and then resetting it.",
        ),
        gpu_fv(fi::NVML_FI_DEV_DRAIN_AND_RESET_STATUS, FvFmt::YesNo),
    ),
    f(
        FieldInfo::new(
            "inforom.checksum_validation",
            "Result of checking the inforom's checksum: \"valid\" or \"invalid\".",
        ),
        Get::Fn(get::inforom_validation),
    ),
    f(
        FieldInfo::new(
            "gpu_recovery_action",
            "What the driver advises to bring the GPU back from a bad state: None, Reset, \
             Reboot, Drain P2P or Drain and Reset.",
        ),
        gpu_fv(fi::NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, FvFmt::Recovery),
    ),
    f(
        FieldInfo::new(
            "gom.current",
            "GPU operation mode in use now.",
        )
        .aliases(&["gpu_operation_mode.current"])
        .heading(
            "gom",
            "GPU operation mode: \"All On\" enables every unit; \"Compute\" disables graphics; \
             \"Low Double Precision\" trades double-precision throughput for graphics workloads. \
             A change takes effect after a reboot.",
        ),
        Get::Fn(|c| get::gom(c, false)),
    ),
    f(
        FieldInfo::new(
            "gom.pending",
            "GPU operation mode that takes over after the next reboot.",
        )
        .aliases(&["gpu_operation_mode.pending"]),
        Get::Fn(|c| get::gom(c, true)),
    ),
    f(
        FieldInfo::new(
            "fan.speed",
            "Speed the fan is asked to run at, as a percentage of its maximum; it can exceed \
             100. A blocked fan may turn slower than this. Boards cooled by the chassis have no \
             value.",
        )
        .unit("%"),
        Get::Fn(get::fan_speed),
    ),
    f(
        FieldInfo::new(
            "pstate",
            "Performance state of the GPU, from P0 (fastest) to P12 (slowest).",
        ),
        Get::Fn(get::pstate),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons.supported",
            "Bit mask of the clock event reasons this GPU can report (bits as in nvml.h).",
        )
        .aliases(&["clocks_throttle_reasons.supported"])
        .heading(
            "clocks_event_reasons",
            "What is currently holding the clocks below their maximum. When every reason reads \
             \"Not Active\", the clocks run as fast as they can.",
        )
        .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.supported"),
        Get::Fn(get::reasons_supported),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons.active",
            "Bit mask of the clock event reasons active right now (bits as in nvml.h).",
        )
        .aliases(&["clocks_throttle_reasons.active"])
        .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.active"),
        Get::Fn(get::reasons_active),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons.gpu_idle",
            "Active when the clocks are low because nothing runs on the GPU.",
        )
        .aliases(&["clocks_throttle_reasons.gpu_idle"])
        .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.gpu_idle"),
        Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksEventReasonGpuIdle))),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons.applications_clocks_setting",
            "Active when the clocks are held at the applications clocks set by the administrator.",
        )
        .aliases(&["clocks_throttle_reasons.applications_clocks_setting"])
        .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.applications_clocks_setting"),
        Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksEventReasonApplicationsClocksSetting))),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons.sw_power_cap",
            "Active when the driver lowers the clocks to keep power draw under the power limit.",
        )
        .aliases(&["clocks_throttle_reasons.sw_power_cap"])
        .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.sw_power_cap"),
        Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksEventReasonSwPowerCap))),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons.hw_slowdown",
            "Active when the hardware has cut the clocks by half or more, because of heat, an \
             external power brake signal, or a power spike.",
        )
        .aliases(&["clocks_throttle_reasons.hw_slowdown"])
        .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.hw_slowdown"),
        Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksThrottleReasonHwSlowdown))),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons.hw_thermal_slowdown",
            "Active when the hardware has cut the clocks by half or more because the GPU is too \
             hot.",
        )
        .aliases(&["clocks_throttle_reasons.hw_thermal_slowdown"])
        .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.hw_thermal_slowdown"),
        Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksThrottleReasonHwThermalSlowdown))),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons.hw_power_brake_slowdown",
            "Active when the hardware has cut the clocks by half or more because the system \
             asserted its power brake signal.",
        )
        .aliases(&["clocks_throttle_reasons.hw_power_brake_slowdown"])
        .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.hw_power_brake_slowdown"),
        Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksThrottleReasonHwPowerBrakeSlowdown))),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons.sw_thermal_slowdown",
            "Active when the driver lowers the clocks because the GPU is hotter than its maximum \
             operating temperature.",
        )
        .aliases(&["clocks_throttle_reasons.sw_thermal_slowdown"])
        .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.sw_thermal_slowdown"),
        Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksEventReasonSwThermalSlowdown))),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons.sync_boost",
            "Active when the clocks are held to the lowest clocks of the GPU's sync boost group.",
        )
        .aliases(&["clocks_throttle_reasons.sync_boost"])
        .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.sync_boost"),
        Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksEventReasonSyncBoost))),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons_counters.sw_power_cap",
            "Time the driver spent lowering the clocks to stay under the power limit.",
        )
        .unit("us")
        .heading(
            "clocks_event_reasons_counters",
            "How long, in microseconds, each reason has held the clocks down since the driver \
             loaded.",
        )
        .counter(),
        gpu_fv(fi::NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP, FvFmt::NsAsUs),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons_counters.sync_boost",
            "Time the clocks were held to the slowest GPU of the sync boost group.",
        )
        .unit("us")
        .counter(),
        gpu_fv(fi::NVML_FI_DEV_CLOCKS_EVENT_REASON_SYNC_BOOST, FvFmt::NsAsUs),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons_counters.sw_thermal_slowdown",
            "Time the driver spent lowering the clocks because the GPU was too hot.",
        )
        .unit("us")
        .counter(),
        gpu_fv(fi::NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN, FvFmt::NsAsUs),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons_counters.hw_thermal_slowdown",
            "Time the hardware spent cutting the clocks because the GPU was too hot.",
        )
        .unit("us")
        .counter(),
        gpu_fv(fi::NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN, FvFmt::NsAsUs),
    ),
    f(
        FieldInfo::new(
            "clocks_event_reasons_counters.hw_power_brake_slowdown",
            "Time the hardware spent cutting the clocks because of the power brake signal.",
        )
        .unit("us")
        .counter(),
        gpu_fv(fi::NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN, FvFmt::NsAsUs),
    ),
    f(
        FieldInfo::new(
            "memory.total",
            "Total frame buffer memory.",
        )
        .unit("MiB")
        .heading(
            "memory",
            "Frame buffer memory of the GPU. With ECC enabled some of it holds check bits; the \
             driver also keeps a part for itself.",
        ),
        Get::Fn(|c| get::memory(c, |m| Ok(m.total))),
    ),
    f(
        FieldInfo::new(
            "memory.reserved",
            "Memory the driver and firmware keep for themselves.",
        )
        .unit("MiB"),
        Get::Fn(|c| get::memory(c, |m| m.reserved)),
    ),
    f(
        FieldInfo::new(
            "memory.used",
            "Memory allocated by running processes.",
        )
        .unit("MiB"),
        Get::Fn(|c| get::memory(c, |m| Ok(m.used))),
    ),
    f(
        FieldInfo::new(
            "memory.free",
            "Memory still free for allocation.",
        )
        .unit("MiB"),
        Get::Fn(|c| get::memory(c, |m| Ok(m.free))),
    ),
    f(
        FieldInfo::new(
            "memory.used.percent",
            "memory.used as a share of memory.total, in percent with two decimals \
             (memory.used.percent > 90 is \"more than 90% full\").",
        )
        .aliases(&["memory.percent"])
        .unit("%")
        .extension(),
        Get::Fn(get::memory_used_percent),
    ),
    f(
        FieldInfo::new(
            "compute_apps.count",
            "How many compute processes the GPU runs now (the rows --query-compute-apps would \
             list for it).",
        )
        .aliases(&["processes.count"])
        .extension(),
        Get::Fn(get::compute_apps_count),
    ),
    f(
        FieldInfo::new(
            "compute_mode",
            "Who may create compute contexts: \"Default\" (any number of processes), \
             \"Exclusive_Process\" (one process), \"Prohibited\" (none).",
        ),
        Get::Fn(get::compute_mode),
    ),
    f(
        FieldInfo::new(
            "compute_cap",
            "CUDA compute capability of the GPU, as major.minor.",
        ),
        Get::Fn(get::compute_cap),
    ),
    f(
        FieldInfo::new(
            "utilization.gpu",
            "Share of the last sampling period in which at least one kernel ran.",
        )
        .unit("%")
        .heading(
            "utilization",
            "How busy the GPU's engines were over the last sampling period, in percent. Not \
             available per engine on GPUs in MIG mode.",
        ),
        Get::Fn(|c| get::utilization(c, false)),
    ),
    f(
        FieldInfo::new(
            "utilization.memory",
            "Share of the last sampling period in which device memory was read or written.",
        )
        .unit("%"),
        Get::Fn(|c| get::utilization(c, true)),
    ),
    f(
        FieldInfo::new(
            "utilization.encoder",
            "Share of the last sampling period in which the video encoder was busy.",
        )
        .unit("%"),
        Get::Fn(get::util_encoder),
    ),
    f(
        FieldInfo::new(
            "utilization.decoder",
            "Share of the last sampling period in which the video decoder was busy.",
        )
        .unit("%"),
        Get::Fn(get::util_decoder),
    ),
    f(
        FieldInfo::new(
            "utilization.jpeg",
            "Share of the last sampling period in which the JPEG decoder was busy.",
        )
        .unit("%"),
        Get::Fn(get::util_jpeg),
    ),
    f(
        FieldInfo::new(
            "utilization.ofa",
            "Share of the last sampling period in which the optical flow accelerator was busy.",
        )
        .unit("%"),
        Get::Fn(get::util_ofa),
    ),
    f(
        FieldInfo::new(
            "encoder.stats.sessionCount",
            "Number of encoder sessions running now.",
        )
        .heading(
            "encoder.stats",
            "Statistics of the hardware video encoder sessions.",
        ),
        Get::Fn(|c| get::encoder_stats(c, |s| s.session_count)),
    ),
    f(
        FieldInfo::new(
            "encoder.stats.averageFps",
            "Average frames per second over all encoder sessions.",
        ),
        Get::Fn(|c| get::encoder_stats(c, |s| s.average_fps)),
    ),
    f(
        FieldInfo::new(
            "encoder.stats.averageLatency",
            "Average time to encode a frame over all sessions, in microseconds.",
        ),
        Get::Fn(|c| get::encoder_stats(c, |s| s.average_latency)),
    ),
    f(
        FieldInfo::new(
            "dramEncryption.mode.current",
            "Whether device memory is encrypted now.",
        )
        .heading(
            "dramEncryption.mode",
            "Encryption of device memory.",
        ),
        Get::Fn(|c| get::dram_encryption(c, false)),
    ),
    f(
        FieldInfo::new(
            "dramEncryption.mode.pending",
            "Whether device memory will be encrypted after the next reboot.",
        ),
        Get::Fn(|c| get::dram_encryption(c, true)),
    ),
    f(
        FieldInfo::new(
            "ecc.mode.current",
            "Whether ECC protection is on now.",
        )
        .heading(
            "ecc.mode",
            "Error-correcting code protection of the GPU's memories.",
        ),
        Get::Fn(|c| get::ecc_mode(c, false)),
    ),
    f(
        FieldInfo::new(
            "ecc.mode.pending",
            "Whether ECC protection will be on after the next reboot.",
        ),
        Get::Fn(|c| get::ecc_mode(c, true)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.volatile.device_memory",
            "Errors corrected in the frame buffer memory since the driver loaded.",
        )
        .heading(
            "ecc.errors",
            "Counts of memory errors found by ECC. \"corrected\" errors were fixed, \
             \"uncorrected\" ones were not. \"volatile\" counts restart when the driver loads, \
             \"aggregate\" counts are kept for the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::Device)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.volatile.dram",
            "Errors corrected in the DRAM (same counter as device_memory) since the driver \
             loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::Device)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.volatile.register_file",
            "Errors corrected in the register file since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::RegisterFile)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.volatile.l1_cache",
            "Errors corrected in the L1 caches since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::L1Cache)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.volatile.l2_cache",
            "Errors corrected in the L2 cache since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::L2Cache)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.volatile.texture_memory",
            "Errors corrected in texture memory since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::Texture)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.volatile.cbu",
            "Errors corrected in the CBU since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::Cbu)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.volatile.sram",
            "Errors corrected in on-chip SRAM since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::SRAM)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.volatile.total",
            "All errors corrected since the driver loaded, over every memory.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_total(c, Corrected, Volatile)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.aggregate.device_memory",
            "Errors corrected in the frame buffer memory over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::Device)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.aggregate.dram",
            "Errors corrected in the DRAM (same counter as device_memory) over the life of the \
             board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::Device)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.aggregate.register_file",
            "Errors corrected in the register file over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::RegisterFile)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.aggregate.l1_cache",
            "Errors corrected in the L1 caches over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::L1Cache)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.aggregate.l2_cache",
            "Errors corrected in the L2 cache over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::L2Cache)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.aggregate.texture_memory",
            "Errors corrected in texture memory over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::Texture)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.aggregate.cbu",
            "Errors corrected in the CBU over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::Cbu)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.aggregate.sram",
            "Errors corrected in on-chip SRAM over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::SRAM)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.corrected.aggregate.total",
            "All errors corrected over the life of the board, over every memory.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_total(c, Corrected, Aggregate)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.volatile.device_memory",
            "Errors uncorrected in the frame buffer memory since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::Device)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.volatile.dram",
            "Errors uncorrected in the DRAM (same counter as device_memory) since the driver \
             loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::Device)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.volatile.register_file",
            "Errors uncorrected in the register file since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::RegisterFile)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.volatile.l1_cache",
            "Errors uncorrected in the L1 caches since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::L1Cache)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.volatile.l2_cache",
            "Errors uncorrected in the L2 cache since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::L2Cache)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.volatile.texture_memory",
            "Errors uncorrected in texture memory since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::Texture)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.volatile.cbu",
            "Errors uncorrected in the CBU since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::Cbu)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.volatile.sram",
            "Errors uncorrected in on-chip SRAM since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::SRAM)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.volatile.total",
            "All errors uncorrected since the driver loaded, over every memory.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_total(c, Uncorrected, Volatile)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.device_memory",
            "Errors uncorrected in the frame buffer memory over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::Device)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.dram",
            "Errors uncorrected in the DRAM (same counter as device_memory) over the life of the \
             board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::Device)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.register_file",
            "Errors uncorrected in the register file over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::RegisterFile)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.l1_cache",
            "Errors uncorrected in the L1 caches over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::L1Cache)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.l2_cache",
            "Errors uncorrected in the L2 cache over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::L2Cache)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.texture_memory",
            "Errors uncorrected in texture memory over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::Texture)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.cbu",
            "Errors uncorrected in the CBU over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::Cbu)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.sram",
            "Errors uncorrected in on-chip SRAM over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::SRAM)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.total",
            "All errors uncorrected over the life of the board, over every memory.",
        )
        .counter(),
        Get::Fn(|c| get::ecc_total(c, Uncorrected, Aggregate)),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.volatile.sram.parity",
            "Uncorrected SRAM parity errors since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::sram(c, |s| Value::count(s.volatileUncParity))),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.volatile.sram.secded",
            "Uncorrected SRAM SEC-DED errors since the driver loaded.",
        )
        .counter(),
        Get::Fn(|c| get::sram(c, |s| Value::count(s.volatileUncSecDed))),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.sram.parity",
            "Uncorrected SRAM parity errors over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncParity))),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.sram.secded",
            "Uncorrected SRAM SEC-DED errors over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncSecDed))),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.sram.thresholdExceeded",
            "Yes when uncorrected SRAM errors have passed the threshold that calls for action.",
        )
        .counter(),
        Get::Fn(|c| get::sram(c, |s| Value::yes_no(s.bThresholdExceeded != 0))),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.sram.l2",
            "Uncorrected SRAM errors in the L2 cache over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncBucketL2))),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.sram.sm",
            "Uncorrected SRAM errors in the streaming multiprocessors over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncBucketSm))),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.sram.mcu",
            "Uncorrected SRAM errors in the microcontrollers over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncBucketMcu))),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.sram.pcie",
            "Uncorrected SRAM errors in the PCIe interface over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncBucketPcie))),
    ),
    f(
        FieldInfo::new(
            "ecc.errors.uncorrected.aggregate.sram.other",
            "Uncorrected SRAM errors in other units over the life of the board.",
        )
        .counter(),
        Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncBucketOther))),
    ),
    f(
        FieldInfo::new(
            "retired_pages.single_bit_ecc.count",
            "Pages retired after repeated single-bit ECC errors.",
        )
        .aliases(&["retired_pages.sbe"])
        .heading(
            "retired_pages",
            "Frame buffer pages taken out of use after ECC errors (GPUs before Ampere).",
        )
        .counter(),
        Get::Fn(|c| get::retired_count(c, RetirementCause::MultipleSingleBitEccErrors)),
    ),
    f(
        FieldInfo::new(
            "retired_pages.double_bit.count",
            "Pages retired after a double-bit ECC error.",
        )
        .aliases(&["retired_pages.dbe"])
        .counter(),
        Get::Fn(|c| get::retired_count(c, RetirementCause::DoubleBitEccError)),
    ),
    f(
        FieldInfo::new(
            "retired_pages.pending",
            "Yes when a page is waiting to be retired at the next driver load.",
        ),
        Get::Fn(get::retired_pending),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.correctable",
            "Rows remapped after correctable errors.",
        )
        .aliases(&["remapped_rows.sbe"])
        .counter()
        .heading(
            "remapped_rows",
            "Memory rows replaced by spare rows after ECC errors (Ampere and newer).",
        ),
        Get::Fn(|c| get::remapped(c, |r| Value::Int(i64::from(r.correctable)))),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.correctable_inactive",
            "Rows remapped after correctable errors that are not in use yet (drivers 595 and \
             later; [N/A] before).",
        ),
        Get::Fn(|c| get::remapped_inactive(c, false)),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.uncorrectable",
            "Rows remapped after uncorrectable errors.",
        )
        .aliases(&["remapped_rows.dbe"])
        .counter(),
        Get::Fn(|c| get::remapped(c, |r| Value::Int(i64::from(r.uncorrectable)))),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.uncorrectable_inactive",
            "Rows remapped after uncorrectable errors that are not in use yet (drivers 595 and \
             later; [N/A] before).",
        ),
        Get::Fn(|c| get::remapped_inactive(c, true)),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.pending",
            "Yes when a remapping waits for the next GPU reset.",
        ),
        Get::Fn(|c| get::remapped(c, |r| Value::yes_no(r.pending != 0))),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.failure",
            "Yes when a row could not be remapped.",
        ),
        Get::Fn(|c| get::remapped(c, |r| Value::yes_no(r.failure != 0))),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.histogram.max",
            "Number of memory banks with all spare rows left.",
        )
        .heading(
            "remapped_rows.histogram",
            "How many memory banks have how many spare rows left.",
        ),
        Get::Fn(|c| get::histogram(c, |h| h.max)),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.histogram.high",
            "Number of memory banks with most spare rows left.",
        ),
        Get::Fn(|c| get::histogram(c, |h| h.high)),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.histogram.partial",
            "Number of memory banks with some spare rows left.",
        ),
        Get::Fn(|c| get::histogram(c, |h| h.partial)),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.histogram.low",
            "Number of memory banks with few spare rows left.",
        ),
        Get::Fn(|c| get::histogram(c, |h| h.low)),
    ),
    f(
        FieldInfo::new(
            "remapped_rows.histogram.none",
            "Number of memory banks with no spare rows left.",
        ),
        Get::Fn(|c| get::histogram(c, |h| h.none)),
    ),
    f(
        FieldInfo::new(
            "temperature.gpu",
            "Temperature of the GPU die, in degrees Celsius.",
        )
        .celsius(),
        Get::Fn(get::temperature_gpu),
    ),
    f(
        FieldInfo::new(
            "temperature.gpu.tlimit",
            "How many degrees Celsius the GPU is below its slowdown temperature (T.Limit).",
        )
        .celsius(),
        Get::Fn(get::temperature_tlimit),
    ),
    f(
        FieldInfo::new(
            "temperature.memory",
            "Temperature of the HBM memory, in degrees Celsius. Boards without a sensor print \
             N/A.",
        )
        .celsius(),
        gpu_fv(fi::NVML_FI_DEV_MEMORY_TEMP, FvFmt::BareInt),
    ),
    f(
        FieldInfo::new(
            "power.management",
            "Whether power management is on (Enabled/Disabled). Drivers from 590 on report this \
             field as deprecated.",
        ),
        Get::Fn(get::power_management),
    ),
    f(
        FieldInfo::new(
            "power.draw",
            "Power the whole board draws, in watts (a one-second average on Ampere and newer, an \
             instant reading before).",
        )
        .unit("W"),
        Get::Fn(get::power_draw),
    ),
    f(
        FieldInfo::new(
            "power.draw.average",
            "Power the whole board drew, averaged over the last second, in watts.",
        )
        .aliases(&["gpu.power.draw.average"])
        .unit("W"),
        gpu_fv(fi::NVML_FI_DEV_POWER_AVERAGE, FvFmt::Watts),
    ),
    f(
        FieldInfo::new(
            "power.draw.instant",
            "Power the whole board draws at this instant, in watts.",
        )
        .aliases(&["gpu.power.draw.instant"])
        .unit("W"),
        gpu_fv(fi::NVML_FI_DEV_POWER_INSTANT, FvFmt::Watts),
    ),
    f(
        FieldInfo::new(
            "power.limit",
            "Power limit set by software, in watts.",
        )
        .aliases(&["gpu.power.requested_limit"])
        .unit("W"),
        Get::Fn(get::power_limit),
    ),
    f(
        FieldInfo::new(
            "enforced.power.limit",
            "Power limit the GPU actually enforces, in watts: the lowest of all limits in effect.",
        )
        .aliases(&["gpu.power.current_limit"])
        .unit("W"),
        Get::Fn(get::enforced_power_limit),
    ),
    f(
        FieldInfo::new(
            "power.default_limit",
            "Power limit the GPU returns to when the driver reloads, in watts.",
        )
        .aliases(&["gpu.power.default_limit"])
        .unit("W"),
        Get::Fn(get::power_default_limit),
    ),
    f(
        FieldInfo::new(
            "power.min_limit",
            "Lowest power limit that can be set, in watts.",
        )
        .aliases(&["gpu.power.min_limit"])
        .unit("W"),
        Get::Fn(|c| get::power_constraints(c, false)),
    ),
    f(
        FieldInfo::new(
            "power.max_limit",
            "Highest power limit that can be set, in watts.",
        )
        .aliases(&["gpu.power.max_limit"])
        .unit("W"),
        Get::Fn(|c| get::power_constraints(c, true)),
    ),
    f(
        FieldInfo::new(
            "module.power.draw.average",
            "Power the whole module drew, averaged over the last second, in watts.",
        )
        .unit("W"),
        module_fv(fi::NVML_FI_DEV_POWER_AVERAGE, FvFmt::Watts),
    ),
    f(
        FieldInfo::new(
            "module.power.draw.instant",
            "Power the whole module draws at this instant, in watts.",
        )
        .unit("W"),
        module_fv(fi::NVML_FI_DEV_POWER_INSTANT, FvFmt::Watts),
    ),
    f(
        FieldInfo::new(
            "module.power.limit",
            "Power limit of the whole module set by software, in watts.",
        )
        .aliases(&["module.power.requested_limit"])
        .unit("W"),
        module_fv(fi::NVML_FI_DEV_POWER_REQUESTED_LIMIT, FvFmt::Watts),
    ),
    f(
        FieldInfo::new(
            "module.enforced.power.limit",
            "Power limit the module actually enforces, in watts.",
        )
        .aliases(&["module.power.current_limit"])
        .unit("W"),
        module_fv(fi::NVML_FI_DEV_POWER_CURRENT_LIMIT, FvFmt::Watts),
    ),
    f(
        FieldInfo::new(
            "module.power.default_limit",
            "Default power limit of the whole module, in watts.",
        )
        .unit("W"),
        module_fv(fi::NVML_FI_DEV_POWER_DEFAULT_LIMIT, FvFmt::Watts),
    ),
    f(
        FieldInfo::new(
            "module.power.min_limit",
            "Lowest power limit that can be set for the module, in watts.",
        )
        .unit("W"),
        module_fv(fi::NVML_FI_DEV_POWER_MIN_LIMIT, FvFmt::Watts),
    ),
    f(
        FieldInfo::new(
            "module.power.max_limit",
            "Highest power limit that can be set for the module, in watts.",
        )
        .unit("W"),
        module_fv(fi::NVML_FI_DEV_POWER_MAX_LIMIT, FvFmt::Watts),
    ),
    f(
        FieldInfo::new(
            "gpu.base.current",
            "Base GPU power currently enforced, in watts. (nvq has no NVML source for this value \
             yet and prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "gpu.base.requested",
            "Base GPU power requested by software, in watts. (nvq has no NVML source for this \
             value yet and prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "gpu.base.default",
            "Default base GPU power, in watts. (nvq has no NVML source for this value yet and \
             prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "gpu.base.min",
            "Lowest base GPU power that can be set, in watts. (nvq has no NVML source for this \
             value yet and prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "gpu.base.max",
            "Highest base GPU power that can be set, in watts. (nvq has no NVML source for this \
             value yet and prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.tmp_floor",
            "Power floor (TMP floor) applied by power smoothing now, in watts.",
        )
        .unit("W")
        .heading(
            "power_smoothing",
            "Power smoothing settings and state (GPUs that support it).",
        ),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_APPLIED_TMP_FLOOR, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.tmp_ceil",
            "Power ceiling (TMP ceiling) applied by power smoothing now, in watts.",
        )
        .unit("W"),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_APPLIED_TMP_CEIL, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.hw_lifetime_remaining_percent",
            "Remaining lifetime of the power smoothing circuitry, in percent.",
        )
        .unit("%"),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_HW_CIRCUITRY_PERCENT_LIFETIME_REMAINING, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.enabled",
            "Yes when power smoothing is switched on.",
        ),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_ENABLED, FvFmt::YesNo),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.delayed_power_smoothing_supported",
            "Yes when the GPU supports delayed power smoothing. (nvq has no NVML source for this \
             value yet and prints [N/A].)",
        ),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.soc_power_smoothing_enabled",
            "Whether state-of-charge power smoothing is switched on. (nvq has no NVML source for \
             this value yet and prints [N/A].)",
        ),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.priv_level",
            "Privilege level of the power smoothing settings.",
        ),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_PRIV_LVL, FvFmt::Int),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.imm_ramp_down",
            "Whether power smoothing may ramp power down at once.",
        ),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_IMM_RAMP_DOWN_ENABLED, FvFmt::EnabledDisabled),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.max_percent_tmp_floor",
            "Highest TMP floor percentage that may be set.",
        )
        .unit("%"),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_MAX_PERCENT_TMP_FLOOR_SETTING, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.min_percent_tmp_floor",
            "Lowest TMP floor percentage that may be set.",
        )
        .unit("%"),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_MIN_PERCENT_TMP_FLOOR_SETTING, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.primary_power_floor",
            "Primary power floor of power smoothing now, in watts. (nvq has no NVML source for \
             this value yet and prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.secondary_power_floor",
            "Secondary power floor of power smoothing now, in watts. (nvq has no NVML source for \
             this value yet and prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.min_primary_floor_activation_offset",
            "Smallest primary floor activation offset, in watts. (nvq has no NVML source for \
             this value yet and prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.min_primary_floor_activation_point",
            "Smallest primary floor activation point, in watts. (nvq has no NVML source for this \
             value yet and prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.window_multiplier",
            "Window multiplier of power smoothing, in milliseconds. (nvq has no NVML source for \
             this value yet and prints [N/A].)",
        )
        .unit("ms"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.num_preset_profiles",
            "Number of power smoothing preset profiles the GPU offers.",
        ),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_MAX_NUM_PRESET_PROFILES, FvFmt::Int),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.curr_profile.percent_tmp_floor",
            "TMP floor percentage of the active profile.",
        )
        .unit("%"),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_PROFILE_PERCENT_TMP_FLOOR, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.curr_profile.ramp_up_rate",
            "Ramp-up rate of the active profile, in watts per second.",
        )
        .unit("W/s"),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_PROFILE_RAMP_UP_RATE, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.curr_profile.ramp_down_rate",
            "Ramp-down rate of the active profile, in watts per second.",
        )
        .unit("W/s"),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_PROFILE_RAMP_DOWN_RATE, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.curr_profile.ramp_down_hysteresis",
            "Ramp-down hysteresis of the active profile, in milliseconds.",
        )
        .unit("ms"),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_PROFILE_RAMP_DOWN_HYST_VAL, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.curr_profile.secondary_power_floor",
            "Secondary power floor of the active profile, in watts. (nvq has no NVML source for \
             this value yet and prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.curr_profile.primary_floor_act_window_multiplier",
            "Primary floor activation window multiplier of the active profile. (nvq has no NVML \
             source for this value yet and prints [N/A].)",
        ),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.curr_profile.primary_floor_tar_window_multiplier",
            "Primary floor target window multiplier of the active profile. (nvq has no NVML \
             source for this value yet and prints [N/A].)",
        ),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.curr_profile.primary_floor_act_offset",
            "Primary floor activation offset of the active profile, in watts. (nvq has no NVML \
             source for this value yet and prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.active_profile",
            "Number of the active power smoothing preset profile.",
        ),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_ACTIVE_PRESET_PROFILE, FvFmt::Int),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.admin_override.percent_tmp_floor",
            "TMP floor percentage forced by the administrator, if any.",
        )
        .unit("%"),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PERCENT_TMP_FLOOR, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.admin_override.ramp_up_rate",
            "Ramp-up rate forced by the administrator, in watts per second, if any.",
        )
        .unit("W/s"),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_RAMP_UP_RATE, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.admin_override.ramp_down_rate",
            "Ramp-down rate forced by the administrator, in watts per second, if any.",
        )
        .unit("W/s"),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_RAMP_DOWN_RATE, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.admin_override.ramp_down_hysteresis",
            "Ramp-down hysteresis forced by the administrator, in milliseconds, if any.",
        )
        .unit("ms"),
        gpu_fv(fi::NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_RAMP_DOWN_HYST_VAL, FvFmt::Number),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.admin_override.secondary_power_floor",
            "Secondary power floor forced by the administrator, in watts, if any. (nvq has no \
             NVML source for this value yet and prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.admin_override.primary_floor_act_window_multiplier",
            "Primary floor activation window multiplier forced by the administrator, if any. \
             (nvq has no NVML source for this value yet and prints [N/A].)",
        ),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.admin_override.primary_floor_tar_window_multiplier",
            "Primary floor target window multiplier forced by the administrator, if any. (nvq \
             has no NVML source for this value yet and prints [N/A].)",
        ),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "power_smoothing.admin_override.primary_floor_act_offset",
            "Primary floor activation offset forced by the administrator, in watts, if any. (nvq \
             has no NVML source for this value yet and prints [N/A].)",
        )
        .unit("W"),
        Get::Fn(get::not_available),
    ),
    f(
        FieldInfo::new(
            "edpp_multiplier",
            "EDPp multiplier of the GPU, in percent.",
        )
        .unit("%"),
        gpu_fv(fi::EDPP_MULTIPLIER, FvFmt::Percent2),
    ),
    f(
        FieldInfo::new(
            "clocks.current.graphics",
            "Current graphics (shader) clock frequency.",
        )
        .aliases(&["clocks.gr"])
        .unit("MHz"),
        Get::Fn(|c| get::clock(c, Clock::Graphics)),
    ),
    f(
        FieldInfo::new(
            "clocks.current.sm",
            "Current streaming multiprocessor clock frequency.",
        )
        .aliases(&["clocks.sm"])
        .unit("MHz"),
        Get::Fn(|c| get::clock(c, Clock::SM)),
    ),
    f(
        FieldInfo::new(
            "clocks.current.memory",
            "Current memory clock frequency.",
        )
        .aliases(&["clocks.mem"])
        .unit("MHz"),
        Get::Fn(|c| get::clock(c, Clock::Memory)),
    ),
    f(
        FieldInfo::new(
            "clocks.current.video",
            "Current video encoder/decoder clock frequency.",
        )
        .aliases(&["clocks.video"])
        .unit("MHz"),
        Get::Fn(|c| get::clock(c, Clock::Video)),
    ),
    f(
        FieldInfo::new(
            "clocks.applications.graphics",
            "Graphics clock frequency applications are started with. Drivers from 590 on report \
             this field as deprecated.",
        )
        .aliases(&["clocks.applications.gr"])
        .unit("MHz")
        .heading(
            "clocks.applications",
            "Clocks that applications are started with, as set by the administrator.",
        ),
        Get::Fn(|c| get::app_clock(c, Clock::Graphics, false)),
    ),
    f(
        FieldInfo::new(
            "clocks.applications.memory",
            "Memory clock frequency applications are started with. Drivers from 590 on report \
             this field as deprecated.",
        )
        .aliases(&["clocks.applications.mem"])
        .unit("MHz"),
        Get::Fn(|c| get::app_clock(c, Clock::Memory, false)),
    ),
    f(
        FieldInfo::new(
            "clocks.default_applications.graphics",
            "Default graphics clock frequency applications are started with. Drivers from 590 on \
             report this field as deprecated.",
        )
        .aliases(&["clocks.default_applications.gr"])
        .unit("MHz")
        .heading(
            "clocks.default_applications",
            "Clocks that applications are started with by default.",
        ),
        Get::Fn(|c| get::app_clock(c, Clock::Graphics, true)),
    ),
    f(
        FieldInfo::new(
            "clocks.default_applications.memory",
            "Default memory clock frequency applications are started with. Drivers from 590 on \
             report this field as deprecated.",
        )
        .aliases(&["clocks.default_applications.mem"])
        .unit("MHz"),
        Get::Fn(|c| get::app_clock(c, Clock::Memory, true)),
    ),
    f(
        FieldInfo::new(
            "clocks.max.graphics",
            "Highest graphics (shader) clock frequency.",
        )
        .aliases(&["clocks.max.gr"])
        .unit("MHz")
        .heading(
            "clocks.max",
            "Highest clocks the GPU may run at.",
        ),
        Get::Fn(|c| get::max_clock(c, Clock::Graphics)),
    ),
    f(
        FieldInfo::new(
            "clocks.max.sm",
            "Highest streaming multiprocessor clock frequency.",
        )
        .unit("MHz"),
        Get::Fn(|c| get::max_clock(c, Clock::SM)),
    ),
    f(
        FieldInfo::new(
            "clocks.max.memory",
            "Highest memory clock frequency.",
        )
        .aliases(&["clocks.max.mem"])
        .unit("MHz"),
        Get::Fn(|c| get::max_clock(c, Clock::Memory)),
    ),
    f(
        FieldInfo::new(
            "mig.mode.current",
            "Whether MIG mode is on now.",
        )
        .heading(
            "mig.mode",
            "Multi-Instance GPU mode: whether the GPU is split into isolated instances.",
        ),
        Get::Fn(|c| get::mig_mode(c, false)),
    ),
    f(
        FieldInfo::new(
            "mig.mode.pending",
            "Whether MIG mode will be on after the next GPU reset.",
        ),
        Get::Fn(|c| get::mig_mode(c, true)),
    ),
    f(
        FieldInfo::new(
            "gsp.mode.current",
            "Whether the GSP firmware runs now.",
        )
        .heading(
            "gsp.mode",
            "Whether the GPU System Processor runs the driver firmware.",
        ),
        Get::Fn(|c| get::gsp_mode(c, false)),
    ),
    f(
        FieldInfo::new(
            "gsp.mode.default",
            "Whether the GSP firmware runs by default on this GPU.",
        ),
        Get::Fn(|c| get::gsp_mode(c, true)),
    ),
    f(
        FieldInfo::new(
            "c2c.mode",
            "Whether the GPU is connected to the CPU through a chip-to-chip (C2C) link \
             (Enabled/Disabled).",
        ),
        Get::Fn(get::c2c_mode),
    ),
    f(
        FieldInfo::new(
            "protected_memory.total",
            "Total memory set aside for confidential computing.",
        )
        .unit("MiB")
        .heading(
            "protected_memory",
            "Memory reserved for confidential computing.",
        ),
        Get::Fn(|c| get::protected_memory(c, |m| m.total)),
    ),
    f(
        FieldInfo::new(
            "protected_memory.used",
            "Confidential computing memory in use.",
        )
        .unit("MiB"),
        Get::Fn(|c| get::protected_memory(c, |m| m.used)),
    ),
    f(
        FieldInfo::new(
            "protected_memory.free",
            "Confidential computing memory still free.",
        )
        .unit("MiB"),
        Get::Fn(|c| get::protected_memory(c, |m| m.free)),
    ),
    f(
        FieldInfo::new(
            "fabric.state",
            "State of the GPU's registration with the NVLink fabric: Not Started, In Progress or \
             Completed. N/A without a fabric.",
        ),
        Get::Fn(get::fabric_state),
    ),
    f(
        FieldInfo::new(
            "fabric.status",
            "Result of the fabric registration once it has completed. N/A without a fabric.",
        ),
        Get::Fn(get::fabric_status),
    ),
    f(
        FieldInfo::new(
            "fabric.cliqueId",
            "Number of the fabric clique the GPU belongs to. N/A without a fabric.",
        ),
        Get::Fn(get::fabric_clique),
    ),
    f(
        FieldInfo::new(
            "fabric.clusterUuid",
            "UUID of the fabric cluster the GPU belongs to. N/A without a fabric.",
        ),
        Get::Fn(get::fabric_cluster_uuid),
    ),
    f(
        FieldInfo::new(
            "fabric.health.summary",
            "Overall health of the GPU's fabric connection. (nvq prints N/A: the value format is \
             not known yet.)",
        ),
        Get::Fn(|_| Value::NotAvailable),
    ),
    f(
        FieldInfo::new(
            "fabric.health.bandwidth",
            "Whether fabric bandwidth is degraded. (nvq prints N/A: the value format is not \
             known yet.)",
        ),
        Get::Fn(|_| Value::NotAvailable),
    ),
    f(
        FieldInfo::new(
            "fabric.health.route_recovery_in_progress",
            "Whether a fabric route is being recovered. (nvq prints N/A: the value format is not \
             known yet.)",
        ),
        Get::Fn(|_| Value::NotAvailable),
    ),
    f(
        FieldInfo::new(
            "fabric.health.route_unhealthy",
            "Whether a fabric route is unhealthy. (nvq prints N/A: the value format is not known \
             yet.)",
        ),
        Get::Fn(|_| Value::NotAvailable),
    ),
    f(
        FieldInfo::new(
            "fabric.health.access_timeout_recovery",
            "Whether the fabric is recovering from an access timeout. (nvq prints N/A: the value \
             format is not known yet.)",
        ),
        Get::Fn(|_| Value::NotAvailable),
    ),
    f(
        FieldInfo::new(
            "fabric.health.incorrect_configuration",
            "Whether the fabric is configured incorrectly. (nvq prints N/A: the value format is \
             not known yet.)",
        ),
        Get::Fn(|_| Value::NotAvailable),
    ),
    f(
        FieldInfo::new(
            "fabric.health.partition_assigned",
            "Whether a fabric partition is assigned to the GPU. (nvq prints N/A: the value \
             format is not known yet.)",
        ),
        Get::Fn(|_| Value::NotAvailable),
    ),
    f(
        FieldInfo::new(
            "platform.chassis_serial_number",
            "Serial number of the chassis that holds the GPU.",
        )
        .heading(
            "platform",
            "Where the GPU sits in its chassis, on systems that report it.",
        ),
        Get::Fn(|c| get::platform(c, |p| Value::text(get::c_bytes(&p.chassisSerialNumber)))),
    ),
    f(
        FieldInfo::new(
            "platform.slot_number",
            "Slot of the chassis that holds the GPU (switch slots included).",
        ),
        Get::Fn(|c| get::platform(c, |p| Value::Int(i64::from(p.slotNumber)))),
    ),
    f(
        FieldInfo::new(
            "platform.tray_index",
            "Index of the compute tray that holds the GPU (switch trays not counted).",
        ),
        Get::Fn(|c| get::platform(c, |p| Value::Int(i64::from(p.trayIndex)))),
    ),
    f(
        FieldInfo::new(
            "platform.host_id",
            "Index of the node inside its slot.",
        ),
        Get::Fn(|c| get::platform(c, |p| Value::Int(i64::from(p.hostId)))),
    ),
    f(
        FieldInfo::new(
            "platform.peer_type",
            "How the GPU's NVLink peers are connected, as the platform reports it.",
        ),
        Get::Fn(|c| get::platform(c, get::peer_type)),
    ),
    f(
        FieldInfo::new(
            "platform.module_id",
            "Number of the GPU inside its node.",
        ),
        Get::Fn(|c| get::platform(c, |p| Value::Int(i64::from(p.moduleId)))),
    ),
    f(
        FieldInfo::new(
            "platform.gpu_fabric_guid",
            "Fabric GUID of the GPU, in hexadecimal.",
        ),
        Get::Fn(|c| get::platform(c, get::fabric_guid)),
    ),
    f(
        FieldInfo::new(
            "hostname",
            "Host name the GPU is associated with.",
        ),
        Get::Fn(get::hostname),
    ),
    f(
        FieldInfo::new(
            "bbx.time_run",
            "Seconds the GPU has been running in total since it was first initialised. (nvq has \
             no NVML source for this value yet and prints [N/A].)",
        )
        .unit("seconds"),
        Get::Fn(get::not_available),
    ),
];
