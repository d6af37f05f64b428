//! Getters of the `--query-gpu` fields: each turns what NVML returns into
//! the cell nvidia-smi prints (behaviour.md §3 gives the formats).
//! A failed NVML call gives the cell of its return code, as nvidia-smi prints it, never a made-up value.

use super::GpuCtx;
use crate::model::Value;
use crate::nvml::raw;
use crate::nvml::NvmlCode;
use nvml_wrapper::enum_wrappers::device::Brand;
use nvml_wrapper::enum_wrappers::device::{
    Clock, EccCounter, InfoRom, MemoryError, MemoryLocation, PcieUtilCounter, RetirementCause,
    TemperatureSensor,
};
use nvml_wrapper::enums::device::DeviceArchitecture;
use nvml_wrapper::struct_wrappers::device::{BAR1MemoryInfo, PciInfo};
use nvml_wrapper_sys::bindings::{nvmlEccSramErrorStatus_t, nvmlMemory_t, nvmlPlatformInfo_t};

pub use crate::nvml::raw::c_bytes;

/// From driver 590 on, nvidia-smi prints
/// `[Requested functionality has been deprecated]` for `display_mode`,
/// `power.management`, `clocks.applications.*` and
/// `clocks.default_applications.*` without asking NVML (captures 01, 03, 04,
/// 06); 465/466 print values (captures 31). 590 is the oldest driver seen
/// doing it, so it is the boundary nvq uses.
pub const DEPRECATED_FROM: u32 = 590;

fn deprecated(c: &GpuCtx) -> bool {
    c.driver_major() >= DEPRECATED_FROM
}

fn uint(v: u32) -> Value {
    Value::Int(i64::from(v))
}

fn watts(c: &GpuCtx, r: Result<u32, NvmlCode>) -> Value {
    c.value(r, Value::watts_from_mw)
}

/// A field nvq has no NVML source for: what nvidia-smi prints on every
/// capture that has it (`[N/A]`), never an invented value.
pub fn not_available(c: &GpuCtx) -> Value {
    c.err(NvmlCode::NOT_SUPPORTED)
}

/// `driver_version`: the driver's version string (`nvmlSystemGetDriverVersion`).
pub fn driver_version(c: &GpuCtx) -> Value {
    c.value(c.session.driver_version(), Value::text)
}

/// Whether the vGPU driver has capability `cap` (`nvmlGetVgpuDriverCapabilities`), as Yes/No.
pub fn vgpu_driver_cap(c: &GpuCtx, cap: u32) -> Value {
    c.value(raw::vgpu_driver_cap(&c.raw(), cap), |v| {
        Value::yes_no(v != 0)
    })
}

/// Whether the GPU has vGPU capability `cap` (`nvmlDeviceGetVgpuCapabilities`), as Yes/No.
pub fn vgpu_device_cap(c: &GpuCtx, cap: u32) -> Value {
    c.value(raw::vgpu_device_cap(&c.raw(), cap), |v| {
        Value::yes_no(v != 0)
    })
}

/// `name`: the product name (`nvmlDeviceGetName`).
pub fn name(c: &GpuCtx) -> Value {
    c.value(c.name(), Value::text)
}

/// `serial`: the board's serial number (`nvmlDeviceGetSerial`); boards without one fail NOT_SUPPORTED.
pub fn serial(c: &GpuCtx) -> Value {
    c.value(c.serial(), Value::text)
}

/// `uuid`: the GPU's UUID, `GPU-` and hex (`nvmlDeviceGetUUID`).
pub fn uuid(c: &GpuCtx) -> Value {
    c.value(c.uuid(), Value::text)
}

/// `pci.bus_id`: `domain:bus:device.function`, as NVML writes it.
pub fn pci_bus_id(c: &GpuCtx) -> Value {
    c.value(c.bus_id(), Value::text)
}

/// A PCI field as text: `f` formats it from the device's `nvmlDeviceGetPciInfo`.
pub fn pci_hex(c: &GpuCtx, f: impl FnOnce(&PciInfo) -> String) -> Value {
    c.value(c.pci(), |p| Value::text(f(p)))
}

/// `pci.sub_device_id`: the subsystem id as `0x` and 8 upper-case hex digits; NOT_SUPPORTED when NVML has none.
pub fn pci_sub_device_id(c: &GpuCtx) -> Value {
    c.value(c.pci(), |p| match p.pci_sub_system_id {
        Some(id) => Value::text(format!("0x{id:08X}")),
        None => c.err(NvmlCode::NOT_SUPPORTED),
    })
}

/// `pci.baseClass` / `pci.subClass`: `0x%X` from `nvmlDeviceGetPciInfoExt`.
pub fn pci_class(c: &GpuCtx, sub: bool) -> Value {
    c.value(c.pci_ext(), |p| {
        let v = if sub { p.subClass } else { p.baseClass };
        Value::text(format!("0x{v:X}"))
    })
}

/// `pcie.link.gen.current`: the PCIe generation the link runs at now.
pub fn pcie_gen_current(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.current_pcie_link_gen()), uint)
}

/// `pcie.link.gen.max`: the highest PCIe generation the GPU and the system together support.
pub fn pcie_gen_max(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.max_pcie_link_gen()), uint)
}

/// `pcie.link.gen.gpumax`: the highest PCIe generation the GPU itself supports.
pub fn pcie_gen_gpumax(c: &GpuCtx) -> Value {
    c.value(raw::pcie_gen_gpumax(&c.raw()), uint)
}

/// `pcie.link.width.current`: the link's lane count now.
pub fn pcie_width_current(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.current_pcie_link_width()), uint)
}

/// `pcie.link.width.max`: the most lanes the link supports.
pub fn pcie_width_max(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.max_pcie_link_width()), uint)
}

/// `display_mode`: whether a display is connected, Enabled/Disabled; deprecated from [`DEPRECATED_FROM`].
pub fn display_mode(c: &GpuCtx) -> Value {
    if deprecated(c) {
        return c.err(NvmlCode::DEPRECATED);
    }
    c.value(c.call(|d| d.is_display_connected()), Value::enabled)
}

/// `display_attached`: whether a display is connected (`nvmlDeviceGetDisplayMode`), Yes/No.
pub fn display_attached(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.is_display_connected()), Value::yes_no)
}

/// `display_active`: whether a display is initialised on the GPU (`nvmlDeviceGetDisplayActive`).
pub fn display_active(c: &GpuCtx) -> Value {
    c.value(read_display_active(c), Value::enabled)
}

/// Whether a display is initialized on the GPU (`nvmlDeviceGetDisplayActive`).
pub fn read_display_active(c: &GpuCtx) -> Result<bool, NvmlCode> {
    c.call(|d| d.is_display_active())
}

/// `persistence_mode`: whether the driver stays loaded with no client (`nvmlDeviceGetPersistenceMode`).
pub fn persistence_mode(c: &GpuCtx) -> Value {
    c.value(read_persistence_mode(c), Value::enabled)
}

/// Whether persistence mode is on (`nvmlDeviceGetPersistenceMode`).
pub fn read_persistence_mode(c: &GpuCtx) -> Result<bool, NvmlCode> {
    c.call(|d| d.is_in_persistent_mode())
}

/// `addressing_mode`: `None`, `HMM` or `ATS`; a value newer than nvq is UNKNOWN.
pub fn addressing_mode(c: &GpuCtx) -> Value {
    c.value(raw::addressing_mode(&c.raw()), |m| match m {
        0 => Value::text("None"),
        1 => Value::text("HMM"),
        2 => Value::text("ATS"),
        other => c.err(unknown_enum(other)),
    })
}

/// An enum value newer than nvq: reported as NVML reports an unknown error.
fn unknown_enum(_value: u32) -> NvmlCode {
    NvmlCode::UNKNOWN
}

/// `accounting.mode`: whether per-process accounting is on (`nvmlDeviceGetAccountingMode`).
pub fn accounting_mode(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.is_accounting_enabled()), Value::enabled)
}

/// `accounting.buffer_size`: how many processes the accounting buffer holds.
pub fn accounting_buffer_size(c: &GpuCtx) -> Value {
    c.value(super::read::accounting_buffer_size(c), uint)
}

/// `driver_model.current` / `.pending` (Windows): `WDDM`, `TCC` or `MCDM`.
pub fn driver_model(c: &GpuCtx, pending: bool) -> Value {
    named_mode(c, c.driver_model(), pending, &["WDDM", "TCC", "MCDM"])
}

/// The current or (`pending`) the pending one of a (current, pending) pair
/// of NVML numbers, by its name in `names` (indexed by the number).
fn named_mode(
    c: &GpuCtx,
    pair: Result<(u32, u32), NvmlCode>,
    pending: bool,
    names: &[&'static str],
) -> Value {
    c.value(pair, |(cur, pend)| {
        let v = if pending { pend } else { cur };
        match names.get(v as usize) {
            Some(name) => Value::text(*name),
            None => c.err(unknown_enum(v)),
        }
    })
}

/// `vbios_version`: the video BIOS version (`nvmlDeviceGetVbiosVersion`).
pub fn vbios_version(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.vbios_version()), Value::text)
}

/// `inforom.img`: the inforom image version (`nvmlDeviceGetInforomImageVersion`).
pub fn inforom_image(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.info_rom_image_version()), Value::text)
}

/// `inforom.oem` / `.ecc` / `.pwr`: the version of inforom object `object`.
pub fn inforom(c: &GpuCtx, object: InfoRom) -> Value {
    c.value(c.call(|d| d.info_rom_version(object)), Value::text)
}

/// "valid", or "invalid" when NVML reports a corrupted inforom.
pub fn inforom_validation(c: &GpuCtx) -> Value {
    match c.call(|d| d.validate_info_rom()) {
        Ok(()) => Value::text("valid"),
        Err(NvmlCode(14)) => Value::text("invalid"),
        Err(code) => c.err(code),
    }
}

/// `gom.current` / `.pending`: the GPU operation mode, `All On`, `Compute` or `Low Double Precision`.
pub fn gom(c: &GpuCtx, pending: bool) -> Value {
    named_mode(
        c,
        c.gom(),
        pending,
        &["All On", "Compute", "Low Double Precision"],
    )
}

/// `fan.speed`: the fan's intended speed in percent of its maximum.
pub fn fan_speed(c: &GpuCtx) -> Value {
    c.value(raw::fan_speed(&c.raw()), uint)
}

/// `P0`…`P15`; NVML's "unknown" state (32) has no P-number.
pub fn pstate(c: &GpuCtx) -> Value {
    c.value(read_pstate(c), |p| match p {
        0..=15 => Value::text(format!("P{p}")),
        _ => c.err(NvmlCode::UNKNOWN),
    })
}

/// The performance state's number as NVML gives it, 0 to 15, 32 for
/// unknown (`nvmlDeviceGetPerformanceState`).
pub fn read_pstate(c: &GpuCtx) -> Result<u32, NvmlCode> {
    raw::pstate(&c.raw())
}

/// `clocks_event_reasons.supported`: the supported reasons' bit mask, `0x` and 16 hex digits.
pub fn reasons_supported(c: &GpuCtx) -> Value {
    c.value(c.reasons_supported(), |m| {
        Value::text(format!("0x{m:016X}"))
    })
}

/// `clocks_event_reasons.active`: the active reasons' bit mask, `0x` and 16 hex digits.
pub fn reasons_active(c: &GpuCtx) -> Value {
    c.value(c.reasons_active(), |m| Value::text(format!("0x{m:016X}")))
}

/// One `clocks_event_reasons.*` field: `Active` when reason `bit` is in the active mask, else `Not Active`.
pub fn reason_bit(c: &GpuCtx, bit: u64) -> Value {
    c.value(c.reasons_active(), |m| {
        Value::text(if m & bit != 0 { "Active" } else { "Not Active" })
    })
}

/// A `memory.*` field in bytes, `pick`ed from the framebuffer memory info.
pub fn memory(c: &GpuCtx, pick: impl FnOnce(&raw::MemInfo) -> Result<u64, NvmlCode>) -> Value {
    c.value(c.memory().and_then(pick), Value::Bytes)
}

/// `memory.used.percent`: used over total, in percent.
pub fn memory_used_percent(c: &GpuCtx) -> Value {
    c.value(c.memory(), |m| {
        if m.total == 0 {
            c.err(NvmlCode::NOT_SUPPORTED)
        } else {
            Value::Float {
                value: m.used as f64 * 100.0 / m.total as f64,
                decimals: 2,
            }
        }
    })
}

/// `memory.derived`: `Yes` when the row's memory is the system's (see
/// [`GpuCtx::deriving_memory`]).
pub fn memory_derived(c: &GpuCtx) -> Value {
    Value::yes_no(c.memory_derived())
}

/// `compute_apps.count`: the length of the compute process list.
pub fn compute_apps_count(c: &GpuCtx) -> Value {
    c.value(raw::processes(&c.raw(), raw::ProcessList::Compute), |p| {
        Value::Int(p.len() as i64)
    })
}

/// `compute_mode`: `Default`, `Exclusive_Thread`, `Prohibited` or `Exclusive_Process`.
pub fn compute_mode(c: &GpuCtx) -> Value {
    c.value(read_compute_mode(c), |m| match m {
        0 => Value::text("Default"),
        1 => Value::text("Exclusive_Thread"),
        2 => Value::text("Prohibited"),
        3 => Value::text("Exclusive_Process"),
        other => c.err(unknown_enum(other)),
    })
}

/// The compute mode's number, `nvmlComputeMode_t` (`nvmlDeviceGetComputeMode`).
pub fn read_compute_mode(c: &GpuCtx) -> Result<u32, NvmlCode> {
    raw::compute_mode(&c.raw())
}

/// `compute_cap`: the CUDA compute capability, `major.minor`.
pub fn compute_cap(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.cuda_compute_capability()), |cc| {
        Value::text(format!("{}.{}", cc.major, cc.minor))
    })
}

/// `utilization.gpu` or (`memory`) `utilization.memory`, in percent.
pub fn utilization(c: &GpuCtx, memory: bool) -> Value {
    c.value(c.utilization(), |u| {
        uint(if memory { u.memory } else { u.gpu })
    })
}

/// `utilization.encoder`: the video encoder's utilization in percent.
pub fn util_encoder(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.encoder_utilization()), |u| uint(u.utilization))
}

/// `utilization.decoder`: the video decoder's utilization in percent.
pub fn util_decoder(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.decoder_utilization()), |u| uint(u.utilization))
}

/// `utilization.jpeg`: the JPEG engine's utilization in percent.
pub fn util_jpeg(c: &GpuCtx) -> Value {
    c.value(raw::engine_utilization(&c.raw(), false), uint)
}

/// `utilization.ofa`: the optical flow accelerator's utilization in percent.
pub fn util_ofa(c: &GpuCtx) -> Value {
    c.value(raw::engine_utilization(&c.raw(), true), uint)
}

/// An `encoder.stats.*` field: session count, average FPS or average latency (µs), `pick`ed.
pub fn encoder_stats(
    c: &GpuCtx,
    pick: impl FnOnce(&nvml_wrapper::structs::device::EncoderStats) -> u32,
) -> Value {
    c.value(c.encoder_stats(), |s| uint(pick(s)))
}

/// `dramEncryption.mode.current` / `.pending`: Enabled/Disabled.
pub fn dram_encryption(c: &GpuCtx, pending: bool) -> Value {
    c.value(c.dram_encryption(), |(cur, pend)| {
        Value::enabled((if pending { pend } else { cur }) != 0)
    })
}

/// `ecc.mode.current` / `.pending`: Enabled/Disabled.
pub fn ecc_mode(c: &GpuCtx, pending: bool) -> Value {
    c.value(c.ecc_mode(), |(cur, pend)| {
        Value::enabled(if pending { pend } else { cur })
    })
}

/// An ECC error count of one memory location (`nvmlDeviceGetMemoryErrorCounter`), volatile or aggregate.
pub fn ecc_counter(
    c: &GpuCtx,
    kind: MemoryError,
    counter: EccCounter,
    location: MemoryLocation,
) -> Value {
    c.value(
        c.call(|d| d.memory_error_counter(kind, counter, location)),
        Value::count,
    )
}

/// A total ECC error count, corrected or not, volatile or aggregate (`nvmlDeviceGetTotalEccErrors`).
pub fn ecc_total(c: &GpuCtx, kind: MemoryError, counter: EccCounter) -> Value {
    c.value(read_ecc_total(c, kind, counter), Value::count)
}

/// A total ECC error count as read (`nvmlDeviceGetTotalEccErrors`).
pub fn read_ecc_total(c: &GpuCtx, kind: MemoryError, counter: EccCounter) -> Result<u64, NvmlCode> {
    c.call(|d| d.total_ecc_errors(kind, counter))
}

/// An SRAM ECC field, `pick`ed from `nvmlDeviceGetSramEccErrorStatus`.
pub fn sram(c: &GpuCtx, pick: impl FnOnce(&nvmlEccSramErrorStatus_t) -> Value) -> Value {
    c.value(c.sram(), pick)
}

/// `retired_pages.single_bit_ecc.count` / `.double_bit.count`: how many pages were retired for `cause`.
pub fn retired_count(c: &GpuCtx, cause: RetirementCause) -> Value {
    c.value(c.retired_pages(cause), |p| Value::count(p.len() as u64))
}

/// `retired_pages.pending`: whether a page waits to be retired at the next reset, Yes/No.
pub fn retired_pending(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.are_pages_pending_retired()), Value::yes_no)
}

/// PCIe throughput (sent, received) in KB/s, each direction one NVML sample
/// of 20 ms, one after the other.
pub fn pcie_throughput_kb(c: &GpuCtx) -> Result<(u32, u32), NvmlCode> {
    use nvml_wrapper::enum_wrappers::device::PcieUtilCounter;
    let tx = c.call(|d| d.pcie_throughput(PcieUtilCounter::Send))?;
    let rx = c.call(|d| d.pcie_throughput(PcieUtilCounter::Receive))?;
    Ok((tx, rx))
}

/// NVML's PCIe replay counter: the one reader of `dmon`'s `pci`, `-q`'s
/// `Replays Since Reset` and the dcgm profile's replay family.
pub fn pcie_replays(c: &GpuCtx) -> Result<u32, NvmlCode> {
    c.call(|d| d.pcie_replay_counter())
}

/// The fact `pcie.replay_counter`.
pub fn pcie_replay_counter(c: &GpuCtx) -> Value {
    c.value(pcie_replays(c), uint)
}

/// `pcie.tx_throughput` / `pcie.rx_throughput`, in KB/s.
pub fn pcie_throughput(c: &GpuCtx, counter: PcieUtilCounter) -> Value {
    c.value(c.call(|d| d.pcie_throughput(counter)), uint)
}

/// `bar1_memory.*`: one `nvmlDeviceGetBAR1MemoryInfo` per sample.
pub fn bar1(c: &GpuCtx, pick: fn(&BAR1MemoryInfo) -> u64) -> Value {
    c.value(c.bar1(), |m| Value::Bytes(pick(m)))
}

/// `minor_number`: the N of `/dev/nvidiaN`.
pub fn minor_number(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.minor_number()), uint)
}

/// A `remapped_rows.*` field, `pick`ed from `nvmlDeviceGetRemappedRows`.
pub fn remapped(c: &GpuCtx, pick: impl FnOnce(&raw::RemappedRows) -> Value) -> Value {
    c.value(c.remapped(), pick)
}

/// `remapped_rows.correctable_inactive` (`uncorrectable == false`) or
/// `remapped_rows.uncorrectable_inactive`.
pub fn remapped_inactive(c: &GpuCtx, uncorrectable: bool) -> Value {
    c.value(raw::remapped_rows_inactive(&c.raw()), |(corr, unc)| {
        uint(if uncorrectable { unc } else { corr })
    })
}

/// A `remapped_rows.histogram.*` bucket (banks with so many spare rows left), `pick`ed.
pub fn histogram(
    c: &GpuCtx,
    pick: impl FnOnce(&nvml_wrapper_sys::bindings::nvmlRowRemapperHistogramValues_t) -> u32,
) -> Value {
    c.value(c.histogram(), |h| uint(pick(h)))
}

/// `temperature.gpu`: the core temperature in °C.
pub fn temperature_gpu(c: &GpuCtx) -> Value {
    c.value(read_temperature_gpu(c), uint)
}

/// The GPU's core temperature in degrees Celsius (`nvmlDeviceGetTemperature`).
pub fn read_temperature_gpu(c: &GpuCtx) -> Result<u32, NvmlCode> {
    c.call(|d| d.temperature(TemperatureSensor::Gpu))
}

/// `temperature.gpu.tlimit`: °C left before the GPU slows down (negative past it).
pub fn temperature_tlimit(c: &GpuCtx) -> Value {
    c.value(raw::margin_temperature(&c.raw()), |t| {
        Value::Int(i64::from(t))
    })
}

/// `power.management`: whether power management is on; deprecated from [`DEPRECATED_FROM`].
pub fn power_management(c: &GpuCtx) -> Value {
    if deprecated(c) {
        return c.err(NvmlCode::DEPRECATED);
    }
    // nvml-wrapper marks the call deprecated; it is what drivers before 590 answer.
    #[allow(deprecated)]
    c.value(
        c.call(|d| d.is_power_management_algo_active()),
        Value::enabled,
    )
}

/// `power.draw`: the board's power draw in W (`nvmlDeviceGetPowerUsage`'s mW).
pub fn power_draw(c: &GpuCtx) -> Value {
    watts(c, read_power_draw(c))
}

/// The power draw in milliwatts (`nvmlDeviceGetPowerUsage`).
pub fn read_power_draw(c: &GpuCtx) -> Result<u32, NvmlCode> {
    c.call(|d| d.power_usage())
}

/// `power.limit`: the power management limit in W.
pub fn power_limit(c: &GpuCtx) -> Value {
    watts(c, read_power_limit(c))
}

/// The power management limit in milliwatts (`nvmlDeviceGetPowerManagementLimit`).
pub fn read_power_limit(c: &GpuCtx) -> Result<u32, NvmlCode> {
    c.call(|d| d.power_management_limit())
}

/// `enforced.power.limit`: the limit actually enforced, in W (the lowest of all limiters).
pub fn enforced_power_limit(c: &GpuCtx) -> Value {
    watts(c, c.call(|d| d.enforced_power_limit()))
}

/// `power.default_limit`: the default power management limit in W.
pub fn power_default_limit(c: &GpuCtx) -> Value {
    watts(c, c.call(|d| d.power_management_limit_default()))
}

/// `power.min_limit` or (`max`) `power.max_limit`: the range the limit can be set in, in W.
pub fn power_constraints(c: &GpuCtx, max: bool) -> Value {
    watts(
        c,
        c.power_constraints()
            .map(|(lo, hi)| if max { hi } else { lo }),
    )
}

/// A `clocks.current.*` field: clock domain `clock`'s current frequency in MHz.
pub fn clock(c: &GpuCtx, clock: Clock) -> Value {
    c.value(c.call(|d| d.clock_info(clock)), uint)
}

/// A `clocks.max.*` field: clock domain `clock`'s highest frequency in MHz.
pub fn max_clock(c: &GpuCtx, clock: Clock) -> Value {
    c.value(c.call(|d| d.max_clock_info(clock)), uint)
}

/// `clocks.applications.*` or (`default`) `clocks.default_applications.*` in MHz;
/// deprecated from [`DEPRECATED_FROM`].
pub fn app_clock(c: &GpuCtx, clock: Clock, default: bool) -> Value {
    if deprecated(c) {
        return c.err(NvmlCode::DEPRECATED);
    }
    let r = if default {
        c.call(|d| d.default_applications_clock(clock))
    } else {
        c.call(|d| d.applications_clock(clock))
    };
    c.value(r, uint)
}

/// `mig.mode.current` / `.pending`: Enabled/Disabled.
pub fn mig_mode(c: &GpuCtx, pending: bool) -> Value {
    c.value(c.mig_mode(), |(cur, pend)| {
        Value::enabled((if pending { pend } else { cur }) == 1)
    })
}

/// `gsp.mode.current`, or (`default`) `gsp.mode.default`: whether GSP firmware runs, Enabled/Disabled.
pub fn gsp_mode(c: &GpuCtx, default: bool) -> Value {
    c.value(c.gsp_mode(), |(on, dflt)| {
        Value::enabled(if default { dflt } else { on })
    })
}

/// `c2c.mode`: whether the chip-to-chip link is enabled (`nvmlDeviceGetC2cModeInfoV`).
pub fn c2c_mode(c: &GpuCtx) -> Value {
    c.value(raw::c2c_mode(&c.raw()), |m| Value::enabled(m != 0))
}

/// A `protected_memory.*` field in bytes (confidential computing), `pick`ed.
pub fn protected_memory(c: &GpuCtx, pick: impl FnOnce(&nvmlMemory_t) -> u64) -> Value {
    c.value(c.protected_memory(), |m| Value::Bytes(pick(m)))
}

/// The fabric fields print a bare `N/A` when the GPU has no fabric (the call
/// fails, or reports state 0) — captures 01 and 03.
fn fabric(c: &GpuCtx, f: impl FnOnce(&raw::FabricInfo) -> Value) -> Value {
    match c.fabric() {
        Ok(i) if i.state != 0 => f(i),
        _ => Value::NotAvailable,
    }
}

/// `fabric.state`: `Not Started`, `In Progress` or `Completed`; bare `N/A` without a fabric.
pub fn fabric_state(c: &GpuCtx) -> Value {
    fabric(c, |i| match i.state {
        1 => Value::text("Not Started"),
        2 => Value::text("In Progress"),
        3 => Value::text("Completed"),
        _ => Value::NotAvailable,
    })
}

/// "Success", or NVML's text for the registration's error code.
pub fn fabric_status(c: &GpuCtx) -> Value {
    fabric(c, |i| Value::text(NvmlCode(i.status).message()))
}

/// `fabric.cliqueId`: the NVLink clique the GPU belongs to.
pub fn fabric_clique(c: &GpuCtx) -> Value {
    fabric(c, |i| uint(i.clique_id))
}

/// The cluster UUID as lower-case 8-4-4-4-12 hex, without a prefix.
pub fn fabric_cluster_uuid(c: &GpuCtx) -> Value {
    fabric(c, |i| Value::text(uuid_text(&i.cluster_uuid)))
}

/// 16 bytes as a lower-case 8-4-4-4-12 hex UUID, without a prefix.
pub fn uuid_text(b: &[u8; 16]) -> String {
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// A `platform.*` field, made by `f` from `nvmlDeviceGetPlatformInfo`.
pub fn platform(c: &GpuCtx, f: impl FnOnce(&nvmlPlatformInfo_t) -> Value) -> Value {
    c.value(c.platform(), f)
}

/// Peer type 0 is what every capture shows, printed "Direct Connected";
/// other values are printed as their number (their wording is unknown).
pub fn peer_type(p: &nvmlPlatformInfo_t) -> Value {
    match p.peerType {
        0 => Value::text("Direct Connected"),
        other => Value::Int(i64::from(other)),
    }
}

/// The first 8 bytes of the InfiniBand GUID, most significant first.
pub fn fabric_guid(p: &nvmlPlatformInfo_t) -> Value {
    let mut v: u64 = 0;
    for b in p.ibGuid.iter().take(8) {
        v = (v << 8) | u64::from(*b);
    }
    Value::text(format!("0x{v:016X}"))
}

/// The hostname the GPU reports (`nvmlDeviceGetHostname_v1`).
pub fn hostname(c: &GpuCtx) -> Value {
    c.value(raw::hostname(&c.raw()), Value::text)
}

/// `brand`: the product brand as `-q` prints it (`nvmlDeviceGetBrand`).
pub fn brand(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.brand()), |b| {
        Value::text(match b {
            Brand::Unknown => "Unknown",
            Brand::Quadro => "Quadro",
            Brand::Tesla => "Tesla",
            Brand::NVS => "NVS",
            Brand::GRID => "Grid",
            Brand::GeForce => "GeForce",
            Brand::Titan => "Titan",
            Brand::VApps => "NVIDIA Virtual Applications",
            Brand::VPC => "NVIDIA Virtual PC",
            Brand::VCS => "NVIDIA Virtual Compute Server",
            Brand::VWS => "NVIDIA RTX Virtual Workstation",
            Brand::CloudGaming => "NVIDIA Cloud Gaming",
            Brand::VGaming => "NVIDIA Virtual Gaming",
            Brand::QuadroRTX => "Quadro RTX",
            Brand::NvidiaRTX => "NVIDIA RTX",
            Brand::Nvidia => "NVIDIA",
            Brand::GeForceRTX => "GeForce RTX",
            Brand::TitanRTX => "Titan RTX",
        })
    })
}

/// `architecture`: the GPU architecture as `-q` prints it (`nvmlDeviceGetArchitecture`):
/// nvml-wrapper's name, but Ada's, which nvidia-smi calls `Ada Lovelace`.
pub fn architecture(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.architecture()), |a| match a {
        DeviceArchitecture::Ada => Value::text("Ada Lovelace"),
        other => Value::text(other.to_string()),
    })
}

/// `multigpu_board`: Yes/No (`nvmlDeviceGetMultiGpuBoard`).
pub fn multi_gpu_board(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.is_multi_gpu_board()), Value::yes_no)
}

/// `board_id`: `0x` and lower-case hex digits (`nvmlDeviceGetBoardId`).
pub fn board_id(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.board_id()), |v| {
        Value::text(format!("0x{v:x}"))
    })
}

/// `board_part_number` (`nvmlDeviceGetBoardPartNumber`).
pub fn board_part_number(c: &GpuCtx) -> Value {
    c.value(c.call(|d| d.board_part_number()), Value::text)
}

/// `module_id` (`nvmlDeviceGetModuleId`).
pub fn module_id(c: &GpuCtx) -> Value {
    c.value(raw::module_id(&c.raw()), uint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_layout() {
        let mut b = [0u8; 16];
        b[0] = 0xAB;
        b[15] = 0x01;
        assert_eq!(uuid_text(&b), "ab000000-0000-0000-0000-000000000001");
    }

    #[test]
    fn guid_is_big_endian_hex() {
        // SAFETY: plain C struct, zero is valid.
        let mut p: nvmlPlatformInfo_t = unsafe { std::mem::zeroed() };
        p.ibGuid[0] = 0x12;
        p.ibGuid[7] = 0xEF;
        assert_eq!(fabric_guid(&p).to_string(), "0x12000000000000EF");
        assert_eq!(peer_type(&p).to_string(), "Direct Connected");
    }
}
