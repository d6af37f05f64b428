//! The getters of the internal facts only `-q` shows (its lines that no
//! `--query-gpu` field prints): each turns what NVML returns into the cell
//! nvidia-smi's report prints, as [`super::get`] does for the fields.

use super::get::not_available;
use super::GpuCtx;
use crate::model::Value;
use crate::nvml::raw;
use nvml_wrapper::enum_wrappers::device::GpuVirtualizationMode;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureThreshold};
use nvml_wrapper::struct_wrappers::device::FbcStats;

/// NVML field ids (`nvmlDeviceGetFieldValues`), nvml-wrapper's numbering.
use nvml_wrapper_sys::bindings::field_id as fi;

/// The field values these getters read beside the facts' own (which the
/// report finds in the catalogue): outbound and inbound atomics (of the
/// GPU's scope, 0), read with the others in one call.
pub const FIELD_VALUES: &[(u32, u32)] = &[
    (fi::NVML_FI_DEV_PCIE_OUTBOUND_ATOMICS_MASK, 0),
    (fi::NVML_FI_DEV_PCIE_INBOUND_ATOMICS_MASK, 0),
];

fn uint(v: u32) -> Value {
    Value::Int(i64::from(v))
}

/// `pdi`: `0x` and 16 lower-case hex digits.
pub fn pdi(c: &GpuCtx) -> Value {
    c.value(raw::pdi(&c.raw()), |v| Value::text(format!("0x{v:016x}")))
}

/// Channel (`tpc == false`) or TPC repair pending: Yes/No.
pub fn repair_pending(c: &GpuCtx, tpc: bool) -> Value {
    c.value(raw::repair_status(&c.raw()), |(channel, t)| {
        Value::yes_no((if tpc { t } else { channel }) != 0)
    })
}

/// `Unrepairable Memory`: Yes/No (`No` on the H100 and H200 590 captures;
/// `N/A` on an RTX 3080, which NVML does not support).
pub fn unrepairable_memory(c: &GpuCtx) -> Value {
    c.value(raw::unrepairable_memory(&c.raw()), Value::yes_no)
}

/// Extended GPU memory: `enabled`/`disabled`, as nvidia-smi spells it here.
pub fn egm(c: &GpuCtx) -> Value {
    c.value(raw::capabilities(&c.raw()), |m| {
        Value::text(if m & raw::DEV_CAP_EGM != 0 {
            "enabled"
        } else {
            "disabled"
        })
    })
}

/// `Inforom BBX Object Flush`: the last flush's start, as nvidia-smi prints
/// its own timestamp (`2024/07/31 05:52:57.891`, local time; public 535-565
/// reports), or its duration in µs (`91568 us`). `N/A` before any flush
/// (NOT_READY: the 555 report's third GPU) or without an InfoROM.
pub fn bbx_flush(c: &GpuCtx, duration: bool) -> Value {
    c.value(raw::last_bbx_flush(&c.raw()), |(start, took)| {
        if duration {
            Value::count(took)
        } else {
            let at = std::time::UNIX_EPOCH + std::time::Duration::from_micros(start);
            Value::text(crate::source::time::format_timestamp(at))
        }
    })
}

/// `Virtualization Mode` (`nvmlDeviceGetVirtualizationMode`).
pub fn virtualization(c: &GpuCtx) -> Value {
    c.value(super::read::virtualization_mode(c), |m| {
        Value::text(virtualization_name(m))
    })
}

/// A virtualization mode as nvidia-smi names it.
fn virtualization_name(m: GpuVirtualizationMode) -> &'static str {
    match m {
        GpuVirtualizationMode::Bare => "None",
        GpuVirtualizationMode::PassThrough => "Pass-Through",
        GpuVirtualizationMode::Vgpu => "VGPU",
        GpuVirtualizationMode::HostVgpu => "Host VGPU",
        GpuVirtualizationMode::HostVsga => "Host VSGA",
    }
}

/// `Host VGPU Mode`: `Non SR-IOV` or `SR-IOV` (`nvmlDeviceGetHostVgpuMode`).
pub fn host_vgpu_mode(c: &GpuCtx) -> Value {
    c.value(raw::host_vgpu_mode(&c.raw()), |m| {
        Value::text(if m == 1 { "SR-IOV" } else { "Non SR-IOV" })
    })
}

/// `vGPU Heterogeneous Mode`: Enabled/Disabled
/// (`nvmlDeviceGetVgpuHeterogeneousMode`).
pub fn vgpu_heterogeneous_mode(c: &GpuCtx) -> Value {
    c.value(raw::vgpu_heterogeneous_mode(&c.raw()), |m| {
        Value::text(if m == 1 { "Enabled" } else { "Disabled" })
    })
}

/// The first bridge chip above the GPU (`nvmlDeviceGetBridgeChipInfo`): its
/// type (`PLX`, `BR04`) or its firmware version in hexadecimal; `N/A` when
/// there is none. No public output with a bridge chip was found: the
/// spellings are unverified.
pub fn bridge_chip(c: &GpuCtx, firmware: bool) -> Value {
    use nvml_wrapper::enum_wrappers::device::BridgeChip;
    use nvml_wrapper::enums::device::FirmwareVersion;
    // nvml-wrapper returns all 128 slots; `chip_count` says how many hold a chip.
    let chip = c.call(|d| d.bridge_chip_info()).map(|h| {
        h.chips_hierarchy
            .into_iter()
            .take(usize::from(h.chip_count))
            .next()
    });
    match chip {
        Ok(Some(chip)) if firmware => match chip.fw_version {
            FirmwareVersion::Version(v) => Value::text(format!("0x{v:08X}")),
            FirmwareVersion::Unavailable => not_available(c),
        },
        Ok(Some(chip)) => Value::text(match chip.chip_type {
            BridgeChip::PLX => "PLX",
            BridgeChip::BRO4 => "BR04",
        }),
        Ok(None) => not_available(c),
        Err(code) => c.err(code),
    }
}

/// `GSP Firmware Version` (`nvmlDeviceGetGspFirmwareVersion`).
pub fn gsp_version(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.gsp_firmware_version()), Value::text)
}

/// `NVML_FI_DEV_PCIE_OUTBOUND_ATOMICS_MASK` or `..._INBOUND_...`: the
/// operations named, each followed by a space, as nvidia-smi prints them.
pub fn atomics(c: &GpuCtx, inbound: bool) -> Value {
    const OPS: [&str; 7] = [
        "FETCHADD_32",
        "FETCHADD_64",
        "SWAP_32",
        "SWAP_64",
        "CAS_32",
        "CAS_64",
        "CAS_128",
    ];
    c.value(
        c.field_value(
            if inbound {
                fi::NVML_FI_DEV_PCIE_INBOUND_ATOMICS_MASK
            } else {
                fi::NVML_FI_DEV_PCIE_OUTBOUND_ATOMICS_MASK
            },
            0,
        ),
        |v| {
            let mask = v.as_i64();
            let names: String = OPS
                .iter()
                .enumerate()
                .filter(|(bit, _)| mask & (1 << bit) != 0)
                .map(|(_, op)| format!("{op} "))
                .collect();
            Value::text(names)
        },
    )
}

/// One number of the frame buffer capture statistics (`nvmlDeviceGetFBCStats`).
pub fn fbc(c: &GpuCtx, pick: fn(&FbcStats) -> u32) -> Value {
    c.value(c.call(|d| d.fbc_stats()), |s| uint(pick(&s)))
}

/// A temperature threshold. Drivers with a T.Limit margin give the first
/// four relative to it, so the C `unsigned int` is read as signed.
pub fn threshold(c: &GpuCtx, t: TemperatureThreshold) -> Value {
    c.value(c.call(|d| d.temperature_threshold(t)), |v| {
        Value::Int(i64::from(v as i32))
    })
}

/// The highest video clock (`nvmlDeviceGetMaxClockInfo`).
pub fn max_clock_video(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.max_clock_info(Clock::Video)), uint)
}

/// The highest graphics clock the GPU boosts to
/// (`nvmlDeviceGetMaxCustomerBoostClock`).
pub fn max_boost_graphics(c: &GpuCtx) -> Value {
    c.value(
        c.call(|d| d.max_customer_boost_clock(Clock::Graphics)),
        uint,
    )
}

/// Auto boost, now or (`default`) by default: On/Off
/// (`nvmlDeviceGetAutoBoostedClocksEnabled`).
pub fn auto_boost(c: &GpuCtx, default: bool) -> Value {
    c.value(c.call(|d| d.auto_boosted_clocks_enabled()), |a| {
        let on = if default {
            a.is_enabled_default
        } else {
            a.is_enabled
        };
        Value::text(if on { "On" } else { "Off" })
    })
}

/// The power management line of the pre-535 "Power Readings" section:
/// `Supported` where NVML says power management is active (as the 525
/// document prints it), `N/A` otherwise.
pub fn power_management_support(c: &GpuCtx) -> Value {
    // nvml-wrapper marks the call deprecated; it is what drivers before 535 answer.
    #[allow(deprecated)]
    c.value(c.call(|d| d.is_power_management_algo_active()), |on| {
        if on {
            Value::text("Supported")
        } else {
            Value::NotAvailable
        }
    })
}

/// `Workload Power Profiles`: the requested (or enforced) profiles by
/// NVML's names (`MAX_P`, `MAX_Q`, `COMPUTE`, ...; an id this list lacks by
/// its number), each followed by a space as nvidia-smi writes the atomic
/// caps; `N/A` when none is set or NVML does not support them (the 570-595
/// documents and captures, Blackwell B200/GB200/GB300 580 ones included,
/// print `N/A`). UNVERIFIED: no public output with a profile set was found,
/// so the names, their separator and the empty case are nvq's guess.
pub fn power_profiles(c: &GpuCtx, enforced: bool) -> Value {
    match raw::power_profiles(&c.raw()) {
        Ok((requested, enforced_ids)) => {
            let ids = if enforced { enforced_ids } else { requested };
            if ids.is_empty() {
                return not_available(c);
            }
            Value::text(
                ids.iter()
                    .map(|&id| match power_profile_name(id) {
                        Some(name) => format!("{name} "),
                        None => format!("{id} "),
                    })
                    .collect::<String>(),
            )
        }
        Err(code) => c.err(code),
    }
}

/// NVML's name of a workload power profile id, without its
/// `NVML_POWER_PROFILE_` prefix; `None` for an id this header lacks.
fn power_profile_name(id: u32) -> Option<&'static str> {
    const NAMES: [&str; 15] = [
        "MAX_P",
        "MAX_Q",
        "COMPUTE",
        "MEMORY_BOUND",
        "NETWORK",
        "BALANCED",
        "LLM_INFERENCE",
        "LLM_TRAINING",
        "RBM",
        "DCPCIE",
        "HMMA_SPARSE",
        "HMMA_DENSE",
        "SYNC_BALANCED",
        "HPC",
        "MIG",
    ];
    NAMES.get(id as usize).copied()
}
