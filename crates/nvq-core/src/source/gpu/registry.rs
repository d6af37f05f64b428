//! The catalogue's readers: one getter per [`Fact`] (`model::fact` holds
//! each fact's name, aliases, unit, kind and help), in `--help-query-gpu`
//! order. `--query-gpu`'s field table, [`FIELDS`], is built from both.

use super::report_get as rg;
use super::{get, FvFmt, Get, GpuCtx};
use crate::model::{Fact, FieldDef, FieldInfo, Value};
use nvml_wrapper::enum_wrappers::device::TemperatureThreshold as T;
use nvml_wrapper::enum_wrappers::device::{
    Clock, InfoRom, MemoryLocation as Loc, PcieUtilCounter, RetirementCause,
};
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

/// A field value (`nvmlDeviceGetFieldValues`) of the GPU.
const fn gpu_fv(id: u32, fmt: FvFmt) -> Get {
    Get::Field { id, scope: 0, fmt }
}

/// A field value of the module the GPU sits on (scope 1: the whole board).
const fn module_fv(id: u32, fmt: FvFmt) -> Get {
    Get::Field { id, scope: 1, fmt }
}

/// A field value of the GPU's memory (scope 2).
const fn memory_fv(id: u32, fmt: FvFmt) -> Get {
    Get::Field { id, scope: 2, fmt }
}

/// The one reader of each fact. The `match` is exhaustive: a fact without a
/// reader does not compile.
const fn reader(fact: Fact) -> Get {
    match fact {
        Fact::Timestamp => Get::Fn(|c| Value::text(c.timestamp())),
        Fact::TimestampEpoch => Get::Fn(|c| crate::source::time::epoch_value(c.taken)),
        Fact::DriverVersion => Get::Fn(get::driver_version),
        Fact::KmdVersion => Get::Fn(get::driver_version),
        Fact::VgpuDriverCapabilityHeterogenousMultivGpu => {
            Get::Fn(|c| get::vgpu_driver_cap(c, cap::DRIVER_HETEROGENEOUS_MULTI_VGPU))
        }
        Fact::Count => Get::Fn(|c| Value::Int(i64::from(c.count))),
        Fact::Name => Get::Fn(get::name),
        Fact::Serial => Get::Fn(get::serial),
        Fact::Uuid => Get::Fn(get::uuid),
        Fact::PciBusId => Get::Fn(get::pci_bus_id),
        Fact::PciDomain => Get::Fn(|c| get::pci_hex(c, |p| format!("0x{:04X}", p.domain))),
        Fact::PciBus => Get::Fn(|c| get::pci_hex(c, |p| format!("0x{:02X}", p.bus))),
        Fact::PciDevice => Get::Fn(|c| get::pci_hex(c, |p| format!("0x{:02X}", p.device))),
        Fact::PciBaseClass => Get::Fn(|c| get::pci_class(c, false)),
        Fact::PciSubClass => Get::Fn(|c| get::pci_class(c, true)),
        Fact::PciDeviceId => Get::Fn(|c| get::pci_hex(c, |p| format!("0x{:08X}", p.pci_device_id))),
        Fact::PciSubDeviceId => Get::Fn(get::pci_sub_device_id),
        Fact::VgpuDeviceCapabilityFractionalMultiVgpu => {
            Get::Fn(|c| get::vgpu_device_cap(c, cap::FRACTIONAL_MULTI_VGPU))
        }
        Fact::VgpuDeviceCapabilityHeterogeneousTimeSliceProfile => {
            Get::Fn(|c| get::vgpu_device_cap(c, cap::HETEROGENEOUS_TIMESLICE_PROFILES))
        }
        Fact::VgpuDeviceCapabilityHeterogeneousTimeSliceSizes => {
            Get::Fn(|c| get::vgpu_device_cap(c, cap::HETEROGENEOUS_TIMESLICE_SIZES))
        }
        Fact::VgpuDeviceCapabilityHomogeneousPlacements => {
            Get::Fn(|c| get::vgpu_device_cap(c, cap::HOMOGENEOUS_PLACEMENTS))
        }
        Fact::VgpuDeviceCapabilityMigTimeSlicing => {
            Get::Fn(|c| get::vgpu_device_cap(c, cap::MIG_TIMESLICING_SUPPORTED))
        }
        Fact::VgpuDeviceCapabilityMigTimeSlicingMode => {
            Get::Fn(|c| get::vgpu_device_cap(c, cap::MIG_TIMESLICING_ENABLED))
        }
        Fact::PcieLinkGenCurrent => Get::Fn(get::pcie_gen_current),
        Fact::PcieLinkGenGpucurrent => Get::Fn(get::pcie_gen_current),
        Fact::PcieLinkGenMax => Get::Fn(get::pcie_gen_max),
        Fact::PcieLinkGenGpumax => Get::Fn(get::pcie_gen_gpumax),
        Fact::PcieLinkGenHostmax => Get::Fn(get::not_available),
        Fact::PcieLinkWidthCurrent => Get::Fn(get::pcie_width_current),
        Fact::PcieLinkWidthMax => Get::Fn(get::pcie_width_max),
        Fact::Index => Get::Fn(|c| Value::Int(i64::from(c.index))),
        Fact::DisplayMode => Get::Fn(get::display_mode),
        Fact::DisplayAttached => Get::Fn(get::display_attached),
        Fact::DisplayActive => Get::Fn(get::display_active),
        Fact::PersistenceMode => Get::Fn(get::persistence_mode),
        Fact::AddressingMode => Get::Fn(get::addressing_mode),
        Fact::AccountingMode => Get::Fn(get::accounting_mode),
        Fact::AccountingBufferSize => Get::Fn(get::accounting_buffer_size),
        Fact::DriverModelCurrent => Get::Fn(|c| get::driver_model(c, false)),
        Fact::DriverModelPending => Get::Fn(|c| get::driver_model(c, true)),
        Fact::VbiosVersion => Get::Fn(get::vbios_version),
        Fact::InforomImg => Get::Fn(get::inforom_image),
        Fact::InforomOem => Get::Fn(|c| get::inforom(c, InfoRom::OEM)),
        Fact::InforomEcc => Get::Fn(|c| get::inforom(c, InfoRom::ECC)),
        Fact::InforomPwr => Get::Fn(|c| get::inforom(c, InfoRom::Power)),
        Fact::ResetStatusResetRequired => gpu_fv(fi::NVML_FI_DEV_RESET_STATUS, FvFmt::YesNo),
        Fact::ResetStatusDrainAndResetRecommended => {
            gpu_fv(fi::NVML_FI_DEV_DRAIN_AND_RESET_STATUS, FvFmt::YesNo)
        }
        Fact::InforomChecksumValidation => Get::Fn(get::inforom_validation),
        Fact::GpuRecoveryAction => gpu_fv(fi::NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, FvFmt::Recovery),
        Fact::GomCurrent => Get::Fn(|c| get::gom(c, false)),
        Fact::GomPending => Get::Fn(|c| get::gom(c, true)),
        Fact::FanSpeed => Get::Fn(get::fan_speed),
        Fact::Pstate => Get::Fn(get::pstate),
        Fact::ClocksEventReasonsSupported => Get::Fn(get::reasons_supported),
        Fact::ClocksEventReasonsActive => Get::Fn(get::reasons_active),
        Fact::ClocksEventReasonsGpuIdle => {
            Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksEventReasonGpuIdle)))
        }
        Fact::ClocksEventReasonsApplicationsClocksSetting => Get::Fn(|c| {
            get::reason_bit(c, u64::from(nvmlClocksEventReasonApplicationsClocksSetting))
        }),
        Fact::ClocksEventReasonsSwPowerCap => {
            Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksEventReasonSwPowerCap)))
        }
        Fact::ClocksEventReasonsHwSlowdown => {
            Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksThrottleReasonHwSlowdown)))
        }
        Fact::ClocksEventReasonsHwThermalSlowdown => {
            Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksThrottleReasonHwThermalSlowdown)))
        }
        Fact::ClocksEventReasonsHwPowerBrakeSlowdown => {
            Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksThrottleReasonHwPowerBrakeSlowdown)))
        }
        Fact::ClocksEventReasonsSwThermalSlowdown => {
            Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksEventReasonSwThermalSlowdown)))
        }
        Fact::ClocksEventReasonsSyncBoost => {
            Get::Fn(|c| get::reason_bit(c, u64::from(nvmlClocksEventReasonSyncBoost)))
        }
        Fact::ClocksEventReasonsCountersSwPowerCap => gpu_fv(
            fi::NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP,
            FvFmt::NsAsUs,
        ),
        Fact::ClocksEventReasonsCountersSyncBoost => gpu_fv(
            fi::NVML_FI_DEV_CLOCKS_EVENT_REASON_SYNC_BOOST,
            FvFmt::NsAsUs,
        ),
        Fact::ClocksEventReasonsCountersSwThermalSlowdown => gpu_fv(
            fi::NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN,
            FvFmt::NsAsUs,
        ),
        Fact::ClocksEventReasonsCountersHwThermalSlowdown => gpu_fv(
            fi::NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN,
            FvFmt::NsAsUs,
        ),
        Fact::ClocksEventReasonsCountersHwPowerBrakeSlowdown => gpu_fv(
            fi::NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN,
            FvFmt::NsAsUs,
        ),
        Fact::MemoryTotal => Get::Fn(|c| get::memory(c, |m| Ok(m.total))),
        Fact::MemoryReserved => Get::Fn(|c| get::memory(c, |m| m.reserved)),
        Fact::MemoryUsed => Get::Fn(|c| get::memory(c, |m| Ok(m.used))),
        Fact::MemoryFree => Get::Fn(|c| get::memory(c, |m| Ok(m.free))),
        Fact::MemoryUsedPercent => Get::Fn(get::memory_used_percent),
        Fact::MemoryDerived => Get::Fn(get::memory_derived),
        Fact::ComputeAppsCount => Get::Fn(get::compute_apps_count),
        Fact::ComputeMode => Get::Fn(get::compute_mode),
        Fact::ComputeCap => Get::Fn(get::compute_cap),
        Fact::UtilizationGpu => Get::Fn(|c| get::utilization(c, false)),
        Fact::UtilizationMemory => Get::Fn(|c| get::utilization(c, true)),
        Fact::UtilizationEncoder => Get::Fn(get::util_encoder),
        Fact::UtilizationDecoder => Get::Fn(get::util_decoder),
        Fact::UtilizationJpeg => Get::Fn(get::util_jpeg),
        Fact::UtilizationOfa => Get::Fn(get::util_ofa),
        Fact::EncoderStatsSessionCount => Get::Fn(|c| get::encoder_stats(c, |s| s.session_count)),
        Fact::EncoderStatsAverageFps => Get::Fn(|c| get::encoder_stats(c, |s| s.average_fps)),
        Fact::EncoderStatsAverageLatency => {
            Get::Fn(|c| get::encoder_stats(c, |s| s.average_latency))
        }
        Fact::DramEncryptionModeCurrent => Get::Fn(|c| get::dram_encryption(c, false)),
        Fact::DramEncryptionModePending => Get::Fn(|c| get::dram_encryption(c, true)),
        Fact::EccModeCurrent => Get::Fn(|c| get::ecc_mode(c, false)),
        Fact::EccModePending => Get::Fn(|c| get::ecc_mode(c, true)),
        Fact::EccErrorsCorrectedVolatileDeviceMemory => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::Device))
        }
        Fact::EccErrorsCorrectedVolatileDram => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::Device))
        }
        Fact::EccErrorsCorrectedVolatileRegisterFile => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::RegisterFile))
        }
        Fact::EccErrorsCorrectedVolatileL1Cache => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::L1Cache))
        }
        Fact::EccErrorsCorrectedVolatileL2Cache => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::L2Cache))
        }
        Fact::EccErrorsCorrectedVolatileTextureMemory => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::Texture))
        }
        Fact::EccErrorsCorrectedVolatileCbu => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::Cbu))
        }
        Fact::EccErrorsCorrectedVolatileSram => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Volatile, Loc::SRAM))
        }
        Fact::EccErrorsCorrectedVolatileTotal => {
            Get::Fn(|c| get::ecc_total(c, Corrected, Volatile))
        }
        Fact::EccErrorsCorrectedAggregateDeviceMemory => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::Device))
        }
        Fact::EccErrorsCorrectedAggregateDram => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::Device))
        }
        Fact::EccErrorsCorrectedAggregateRegisterFile => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::RegisterFile))
        }
        Fact::EccErrorsCorrectedAggregateL1Cache => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::L1Cache))
        }
        Fact::EccErrorsCorrectedAggregateL2Cache => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::L2Cache))
        }
        Fact::EccErrorsCorrectedAggregateTextureMemory => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::Texture))
        }
        Fact::EccErrorsCorrectedAggregateCbu => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::Cbu))
        }
        Fact::EccErrorsCorrectedAggregateSram => {
            Get::Fn(|c| get::ecc_counter(c, Corrected, Aggregate, Loc::SRAM))
        }
        Fact::EccErrorsCorrectedAggregateTotal => {
            Get::Fn(|c| get::ecc_total(c, Corrected, Aggregate))
        }
        Fact::EccErrorsUncorrectedVolatileDeviceMemory => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::Device))
        }
        Fact::EccErrorsUncorrectedVolatileDram => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::Device))
        }
        Fact::EccErrorsUncorrectedVolatileRegisterFile => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::RegisterFile))
        }
        Fact::EccErrorsUncorrectedVolatileL1Cache => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::L1Cache))
        }
        Fact::EccErrorsUncorrectedVolatileL2Cache => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::L2Cache))
        }
        Fact::EccErrorsUncorrectedVolatileTextureMemory => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::Texture))
        }
        Fact::EccErrorsUncorrectedVolatileCbu => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::Cbu))
        }
        Fact::EccErrorsUncorrectedVolatileSram => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Volatile, Loc::SRAM))
        }
        Fact::EccErrorsUncorrectedVolatileTotal => {
            Get::Fn(|c| get::ecc_total(c, Uncorrected, Volatile))
        }
        Fact::EccErrorsUncorrectedAggregateDeviceMemory => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::Device))
        }
        Fact::EccErrorsUncorrectedAggregateDram => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::Device))
        }
        Fact::EccErrorsUncorrectedAggregateRegisterFile => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::RegisterFile))
        }
        Fact::EccErrorsUncorrectedAggregateL1Cache => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::L1Cache))
        }
        Fact::EccErrorsUncorrectedAggregateL2Cache => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::L2Cache))
        }
        Fact::EccErrorsUncorrectedAggregateTextureMemory => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::Texture))
        }
        Fact::EccErrorsUncorrectedAggregateCbu => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::Cbu))
        }
        Fact::EccErrorsUncorrectedAggregateSram => {
            Get::Fn(|c| get::ecc_counter(c, Uncorrected, Aggregate, Loc::SRAM))
        }
        Fact::EccErrorsUncorrectedAggregateTotal => {
            Get::Fn(|c| get::ecc_total(c, Uncorrected, Aggregate))
        }
        Fact::EccErrorsUncorrectedVolatileSramParity => {
            Get::Fn(|c| get::sram(c, |s| Value::count(s.volatileUncParity)))
        }
        Fact::EccErrorsUncorrectedVolatileSramSecded => {
            Get::Fn(|c| get::sram(c, |s| Value::count(s.volatileUncSecDed)))
        }
        Fact::EccErrorsUncorrectedAggregateSramParity => {
            Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncParity)))
        }
        Fact::EccErrorsUncorrectedAggregateSramSecded => {
            Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncSecDed)))
        }
        Fact::EccErrorsUncorrectedAggregateSramThresholdExceeded => {
            Get::Fn(|c| get::sram(c, |s| Value::yes_no(s.bThresholdExceeded != 0)))
        }
        Fact::EccErrorsUncorrectedAggregateSramL2 => {
            Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncBucketL2)))
        }
        Fact::EccErrorsUncorrectedAggregateSramSm => {
            Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncBucketSm)))
        }
        Fact::EccErrorsUncorrectedAggregateSramMcu => {
            Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncBucketMcu)))
        }
        Fact::EccErrorsUncorrectedAggregateSramPcie => {
            Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncBucketPcie)))
        }
        Fact::EccErrorsUncorrectedAggregateSramOther => {
            Get::Fn(|c| get::sram(c, |s| Value::count(s.aggregateUncBucketOther)))
        }
        Fact::RetiredPagesSingleBitEccCount => {
            Get::Fn(|c| get::retired_count(c, RetirementCause::MultipleSingleBitEccErrors))
        }
        Fact::RetiredPagesDoubleBitCount => {
            Get::Fn(|c| get::retired_count(c, RetirementCause::DoubleBitEccError))
        }
        Fact::RetiredPagesPending => Get::Fn(get::retired_pending),
        Fact::RemappedRowsCorrectable => {
            Get::Fn(|c| get::remapped(c, |r| Value::Int(i64::from(r.correctable))))
        }
        Fact::RemappedRowsCorrectableInactive => Get::Fn(|c| get::remapped_inactive(c, false)),
        Fact::RemappedRowsUncorrectable => {
            Get::Fn(|c| get::remapped(c, |r| Value::Int(i64::from(r.uncorrectable))))
        }
        Fact::RemappedRowsUncorrectableInactive => Get::Fn(|c| get::remapped_inactive(c, true)),
        Fact::RemappedRowsPending => {
            Get::Fn(|c| get::remapped(c, |r| Value::yes_no(r.pending != 0)))
        }
        Fact::RemappedRowsFailure => {
            Get::Fn(|c| get::remapped(c, |r| Value::yes_no(r.failure != 0)))
        }
        Fact::RemappedRowsHistogramMax => Get::Fn(|c| get::histogram(c, |h| h.max)),
        Fact::RemappedRowsHistogramHigh => Get::Fn(|c| get::histogram(c, |h| h.high)),
        Fact::RemappedRowsHistogramPartial => Get::Fn(|c| get::histogram(c, |h| h.partial)),
        Fact::RemappedRowsHistogramLow => Get::Fn(|c| get::histogram(c, |h| h.low)),
        Fact::RemappedRowsHistogramNone => Get::Fn(|c| get::histogram(c, |h| h.none)),
        Fact::TemperatureGpu => Get::Fn(get::temperature_gpu),
        Fact::TemperatureGpuTlimit => Get::Fn(get::temperature_tlimit),
        Fact::TemperatureMemory => gpu_fv(fi::NVML_FI_DEV_MEMORY_TEMP, FvFmt::BareInt),
        Fact::PowerManagement => Get::Fn(get::power_management),
        Fact::PowerDraw => Get::Fn(get::power_draw),
        Fact::PowerDrawAverage => gpu_fv(fi::NVML_FI_DEV_POWER_AVERAGE, FvFmt::Watts),
        Fact::PowerDrawInstant => gpu_fv(fi::NVML_FI_DEV_POWER_INSTANT, FvFmt::Watts),
        Fact::PowerLimit => Get::Fn(get::power_limit),
        Fact::EnforcedPowerLimit => Get::Fn(get::enforced_power_limit),
        Fact::PowerDefaultLimit => Get::Fn(get::power_default_limit),
        Fact::PowerMinLimit => Get::Fn(|c| get::power_constraints(c, false)),
        Fact::PowerMaxLimit => Get::Fn(|c| get::power_constraints(c, true)),
        Fact::ModulePowerDrawAverage => module_fv(fi::NVML_FI_DEV_POWER_AVERAGE, FvFmt::Watts),
        Fact::ModulePowerDrawInstant => module_fv(fi::NVML_FI_DEV_POWER_INSTANT, FvFmt::Watts),
        Fact::ModulePowerLimit => module_fv(fi::NVML_FI_DEV_POWER_REQUESTED_LIMIT, FvFmt::Watts),
        Fact::ModuleEnforcedPowerLimit => {
            module_fv(fi::NVML_FI_DEV_POWER_CURRENT_LIMIT, FvFmt::Watts)
        }
        Fact::ModulePowerDefaultLimit => {
            module_fv(fi::NVML_FI_DEV_POWER_DEFAULT_LIMIT, FvFmt::Watts)
        }
        Fact::ModulePowerMinLimit => module_fv(fi::NVML_FI_DEV_POWER_MIN_LIMIT, FvFmt::Watts),
        Fact::ModulePowerMaxLimit => module_fv(fi::NVML_FI_DEV_POWER_MAX_LIMIT, FvFmt::Watts),
        Fact::GpuBaseCurrent => Get::Fn(get::not_available),
        Fact::GpuBaseRequested => Get::Fn(get::not_available),
        Fact::GpuBaseDefault => Get::Fn(get::not_available),
        Fact::GpuBaseMin => Get::Fn(get::not_available),
        Fact::GpuBaseMax => Get::Fn(get::not_available),
        Fact::PowerSmoothingTmpFloor => {
            gpu_fv(fi::NVML_FI_PWR_SMOOTHING_APPLIED_TMP_FLOOR, FvFmt::Number)
        }
        Fact::PowerSmoothingTmpCeil => {
            gpu_fv(fi::NVML_FI_PWR_SMOOTHING_APPLIED_TMP_CEIL, FvFmt::Number)
        }
        Fact::PowerSmoothingHwLifetimeRemainingPercent => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_HW_CIRCUITRY_PERCENT_LIFETIME_REMAINING,
            FvFmt::Number,
        ),
        Fact::PowerSmoothingEnabled => gpu_fv(fi::NVML_FI_PWR_SMOOTHING_ENABLED, FvFmt::YesNo),
        Fact::PowerSmoothingDelayedPowerSmoothingSupported => Get::Fn(get::not_available),
        Fact::PowerSmoothingSocPowerSmoothingEnabled => Get::Fn(get::not_available),
        Fact::PowerSmoothingPrivLevel => gpu_fv(fi::NVML_FI_PWR_SMOOTHING_PRIV_LVL, FvFmt::Int),
        Fact::PowerSmoothingImmRampDown => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_IMM_RAMP_DOWN_ENABLED,
            FvFmt::EnabledDisabled,
        ),
        Fact::PowerSmoothingMaxPercentTmpFloor => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_MAX_PERCENT_TMP_FLOOR_SETTING,
            FvFmt::Number,
        ),
        Fact::PowerSmoothingMinPercentTmpFloor => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_MIN_PERCENT_TMP_FLOOR_SETTING,
            FvFmt::Number,
        ),
        Fact::PowerSmoothingPrimaryPowerFloor => Get::Fn(get::not_available),
        Fact::PowerSmoothingSecondaryPowerFloor => Get::Fn(get::not_available),
        Fact::PowerSmoothingMinPrimaryFloorActivationOffset => Get::Fn(get::not_available),
        Fact::PowerSmoothingMinPrimaryFloorActivationPoint => Get::Fn(get::not_available),
        Fact::PowerSmoothingWindowMultiplier => Get::Fn(get::not_available),
        Fact::PowerSmoothingNumPresetProfiles => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_MAX_NUM_PRESET_PROFILES,
            FvFmt::Int,
        ),
        Fact::PowerSmoothingCurrProfilePercentTmpFloor => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_PROFILE_PERCENT_TMP_FLOOR,
            FvFmt::Number,
        ),
        Fact::PowerSmoothingCurrProfileRampUpRate => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_PROFILE_RAMP_UP_RATE,
            FvFmt::Number,
        ),
        Fact::PowerSmoothingCurrProfileRampDownRate => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_PROFILE_RAMP_DOWN_RATE,
            FvFmt::Number,
        ),
        Fact::PowerSmoothingCurrProfileRampDownHysteresis => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_PROFILE_RAMP_DOWN_HYST_VAL,
            FvFmt::Number,
        ),
        Fact::PowerSmoothingCurrProfileSecondaryPowerFloor => Get::Fn(get::not_available),
        Fact::PowerSmoothingCurrProfilePrimaryFloorActWindowMultiplier => {
            Get::Fn(get::not_available)
        }
        Fact::PowerSmoothingCurrProfilePrimaryFloorTarWindowMultiplier => {
            Get::Fn(get::not_available)
        }
        Fact::PowerSmoothingCurrProfilePrimaryFloorActOffset => Get::Fn(get::not_available),
        Fact::PowerSmoothingActiveProfile => {
            gpu_fv(fi::NVML_FI_PWR_SMOOTHING_ACTIVE_PRESET_PROFILE, FvFmt::Int)
        }
        Fact::PowerSmoothingAdminOverridePercentTmpFloor => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_PERCENT_TMP_FLOOR,
            FvFmt::Number,
        ),
        Fact::PowerSmoothingAdminOverrideRampUpRate => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_RAMP_UP_RATE,
            FvFmt::Number,
        ),
        Fact::PowerSmoothingAdminOverrideRampDownRate => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_RAMP_DOWN_RATE,
            FvFmt::Number,
        ),
        Fact::PowerSmoothingAdminOverrideRampDownHysteresis => gpu_fv(
            fi::NVML_FI_PWR_SMOOTHING_ADMIN_OVERRIDE_RAMP_DOWN_HYST_VAL,
            FvFmt::Number,
        ),
        Fact::PowerSmoothingAdminOverrideSecondaryPowerFloor => Get::Fn(get::not_available),
        Fact::PowerSmoothingAdminOverridePrimaryFloorActWindowMultiplier => {
            Get::Fn(get::not_available)
        }
        Fact::PowerSmoothingAdminOverridePrimaryFloorTarWindowMultiplier => {
            Get::Fn(get::not_available)
        }
        Fact::PowerSmoothingAdminOverridePrimaryFloorActOffset => Get::Fn(get::not_available),
        Fact::EdppMultiplier => gpu_fv(fi::EDPP_MULTIPLIER, FvFmt::Percent2),
        Fact::ClocksCurrentGraphics => Get::Fn(|c| get::clock(c, Clock::Graphics)),
        Fact::ClocksCurrentSm => Get::Fn(|c| get::clock(c, Clock::SM)),
        Fact::ClocksCurrentMemory => Get::Fn(|c| get::clock(c, Clock::Memory)),
        Fact::ClocksCurrentVideo => Get::Fn(|c| get::clock(c, Clock::Video)),
        Fact::ClocksApplicationsGraphics => Get::Fn(|c| get::app_clock(c, Clock::Graphics, false)),
        Fact::ClocksApplicationsMemory => Get::Fn(|c| get::app_clock(c, Clock::Memory, false)),
        Fact::ClocksDefaultApplicationsGraphics => {
            Get::Fn(|c| get::app_clock(c, Clock::Graphics, true))
        }
        Fact::ClocksDefaultApplicationsMemory => {
            Get::Fn(|c| get::app_clock(c, Clock::Memory, true))
        }
        Fact::ClocksMaxGraphics => Get::Fn(|c| get::max_clock(c, Clock::Graphics)),
        Fact::ClocksMaxSm => Get::Fn(|c| get::max_clock(c, Clock::SM)),
        Fact::ClocksMaxMemory => Get::Fn(|c| get::max_clock(c, Clock::Memory)),
        Fact::MigModeCurrent => Get::Fn(|c| get::mig_mode(c, false)),
        Fact::MigModePending => Get::Fn(|c| get::mig_mode(c, true)),
        Fact::GspModeCurrent => Get::Fn(|c| get::gsp_mode(c, false)),
        Fact::GspModeDefault => Get::Fn(|c| get::gsp_mode(c, true)),
        Fact::C2cMode => Get::Fn(get::c2c_mode),
        Fact::ProtectedMemoryTotal => Get::Fn(|c| get::protected_memory(c, |m| m.total)),
        Fact::ProtectedMemoryUsed => Get::Fn(|c| get::protected_memory(c, |m| m.used)),
        Fact::ProtectedMemoryFree => Get::Fn(|c| get::protected_memory(c, |m| m.free)),
        Fact::FabricState => Get::Fn(get::fabric_state),
        Fact::FabricStatus => Get::Fn(get::fabric_status),
        Fact::FabricCliqueId => Get::Fn(get::fabric_clique),
        Fact::FabricClusterUuid => Get::Fn(get::fabric_cluster_uuid),
        Fact::FabricHealthSummary => Get::Fn(|_| Value::NotAvailable),
        Fact::FabricHealthBandwidth => Get::Fn(|_| Value::NotAvailable),
        Fact::FabricHealthRouteRecoveryInProgress => Get::Fn(|_| Value::NotAvailable),
        Fact::FabricHealthRouteUnhealthy => Get::Fn(|_| Value::NotAvailable),
        Fact::FabricHealthAccessTimeoutRecovery => Get::Fn(|_| Value::NotAvailable),
        Fact::FabricHealthIncorrectConfiguration => Get::Fn(|_| Value::NotAvailable),
        Fact::FabricHealthPartitionAssigned => Get::Fn(|_| Value::NotAvailable),
        Fact::PlatformChassisSerialNumber => {
            Get::Fn(|c| get::platform(c, |p| Value::text(get::c_bytes(&p.chassisSerialNumber))))
        }
        Fact::PlatformSlotNumber => {
            Get::Fn(|c| get::platform(c, |p| Value::Int(i64::from(p.slotNumber))))
        }
        Fact::PlatformTrayIndex => {
            Get::Fn(|c| get::platform(c, |p| Value::Int(i64::from(p.trayIndex))))
        }
        Fact::PlatformHostId => Get::Fn(|c| get::platform(c, |p| Value::Int(i64::from(p.hostId)))),
        Fact::PlatformPeerType => Get::Fn(|c| get::platform(c, get::peer_type)),
        Fact::PlatformModuleId => {
            Get::Fn(|c| get::platform(c, |p| Value::Int(i64::from(p.moduleId))))
        }
        Fact::PlatformGpuFabricGuid => Get::Fn(|c| get::platform(c, get::fabric_guid)),
        Fact::Hostname => Get::Fn(get::hostname),
        Fact::BbxTimeRun => Get::Fn(get::not_available),
        Fact::Bar1MemoryTotal => Get::Fn(|c| get::bar1(c, |m| m.total)),
        Fact::Bar1MemoryUsed => Get::Fn(|c| get::bar1(c, |m| m.used)),
        Fact::Bar1MemoryFree => Get::Fn(|c| get::bar1(c, |m| m.free)),
        // nvmlDeviceGetPcieReplayCounter, as `-q`'s "Replays Since Reset" and
        // dmon's `pci` read it.
        Fact::PcieReplayCounter => Get::Fn(get::pcie_replay_counter),
        Fact::PcieReplayRolloverCounter => {
            gpu_fv(fi::NVML_FI_DEV_PCIE_REPLAY_ROLLOVER_COUNTER, FvFmt::Int)
        }
        // nvmlDeviceGetPcieThroughput (KB/s over 20 ms), as `-q` and dmon's
        // `rxpci`/`txpci` read it.
        Fact::PcieTxThroughput => Get::Fn(|c| get::pcie_throughput(c, PcieUtilCounter::Send)),
        Fact::PcieRxThroughput => Get::Fn(|c| get::pcie_throughput(c, PcieUtilCounter::Receive)),
        // The memory scope (2) of the power readings, as `-q`'s "GPU Memory
        // Power Readings" show them.
        Fact::MemoryPowerAverage => memory_fv(fi::NVML_FI_DEV_POWER_AVERAGE, FvFmt::Watts),
        Fact::MemoryPowerInstant => memory_fv(fi::NVML_FI_DEV_POWER_INSTANT, FvFmt::Watts),
        Fact::MinorNumber => Get::Fn(get::minor_number),
        Fact::Brand => Get::Fn(get::brand),
        Fact::Architecture => Get::Fn(get::architecture),
        Fact::MultiGpuBoard => Get::Fn(get::multi_gpu_board),
        Fact::BoardId => Get::Fn(get::board_id),
        Fact::BoardPartNumber => Get::Fn(get::board_part_number),
        Fact::ModuleId => Get::Fn(get::module_id),
        // The internal facts only `-q` shows (`report_get`).
        Fact::Pdi => Get::Fn(rg::pdi),
        Fact::ChannelRepairPending => Get::Fn(|c| rg::repair_pending(c, false)),
        Fact::TpcRepairPending => Get::Fn(|c| rg::repair_pending(c, true)),
        Fact::UnrepairableMemory => Get::Fn(rg::unrepairable_memory),
        Fact::Egm => Get::Fn(rg::egm),
        Fact::BbxFlushTimestamp => Get::Fn(|c| rg::bbx_flush(c, false)),
        Fact::BbxFlushDuration => Get::Fn(|c| rg::bbx_flush(c, true)),
        Fact::VirtualizationMode => Get::Fn(rg::virtualization),
        Fact::HostVgpuMode => Get::Fn(rg::host_vgpu_mode),
        Fact::VgpuHeterogeneousMode => Get::Fn(rg::vgpu_heterogeneous_mode),
        Fact::BridgeChipType => Get::Fn(|c| rg::bridge_chip(c, false)),
        Fact::BridgeChipFirmware => Get::Fn(|c| rg::bridge_chip(c, true)),
        Fact::GspFirmwareVersion => Get::Fn(rg::gsp_version),
        Fact::PcieAtomicCapsInbound => Get::Fn(|c| rg::atomics(c, true)),
        Fact::PcieAtomicCapsOutbound => Get::Fn(|c| rg::atomics(c, false)),
        Fact::FbcSessionCount => Get::Fn(|c| rg::fbc(c, |s| s.sessions_count)),
        Fact::FbcAverageFps => Get::Fn(|c| rg::fbc(c, |s| s.average_fps)),
        Fact::FbcAverageLatency => Get::Fn(|c| rg::fbc(c, |s| s.average_latency)),
        Fact::TemperatureShutdown => Get::Fn(|c| rg::threshold(c, T::Shutdown)),
        Fact::TemperatureSlowdown => Get::Fn(|c| rg::threshold(c, T::Slowdown)),
        Fact::TemperatureGpuMax => Get::Fn(|c| rg::threshold(c, T::GpuMax)),
        Fact::TemperatureMemoryMax => Get::Fn(|c| rg::threshold(c, T::MemoryMax)),
        Fact::TemperatureTarget => Get::Fn(|c| rg::threshold(c, T::GpsCurr)),
        Fact::TemperatureAcousticMin => Get::Fn(|c| rg::threshold(c, T::AcousticMin)),
        Fact::TemperatureAcousticMax => Get::Fn(|c| rg::threshold(c, T::AcousticMax)),
        Fact::ClocksMaxVideo => Get::Fn(rg::max_clock_video),
        Fact::ClocksMaxBoostGraphics => Get::Fn(rg::max_boost_graphics),
        Fact::AutoBoost => Get::Fn(|c| rg::auto_boost(c, false)),
        Fact::AutoBoostDefault => Get::Fn(|c| rg::auto_boost(c, true)),
        Fact::PowerManagementSupport => Get::Fn(rg::power_management_support),
        Fact::PowerSmoothingState => {
            gpu_fv(fi::NVML_FI_PWR_SMOOTHING_ENABLED, FvFmt::EnabledDisabled)
        }
        Fact::PowerProfilesRequested => Get::Fn(|c| rg::power_profiles(c, false)),
        Fact::PowerProfilesEnforced => Get::Fn(|c| rg::power_profiles(c, true)),
    }
}

/// Every fact with its reader, indexed by the fact.
static TABLE: [FieldDef<Get>; Fact::COUNT] = {
    let mut out = [const {
        FieldDef {
            info: FieldInfo::new("", ""),
            get: Get::Fn(get::not_available),
        }
    }; Fact::COUNT];
    let mut i = 0;
    while i < Fact::COUNT {
        let fact = Fact::ALL[i];
        out[i] = FieldDef {
            info: fact.describe(),
            get: reader(fact),
        };
        i += 1;
    }
    out
};

/// Every `--query-gpu` field, in `--help-query-gpu` order: the facts that are
/// not internal (`FIELDS[i]` is the fact `Fact::ALL[i]`).
pub static FIELDS: &[FieldDef<Get>] = TABLE.split_at(Fact::FIELDS).0;

/// Every fact's definition, the internal ones included.
pub static FACTS: &[FieldDef<Get>] = &TABLE;

/// The fact's definition: its description and its one reader.
pub fn fact_def(fact: Fact) -> &'static FieldDef<Get> {
    &TABLE[fact as usize]
}

impl GpuCtx<'_> {
    /// The fact's value for this GPU in this sample, through its one reader.
    pub fn fact(&self, fact: Fact) -> Value {
        fact_def(fact).get.read(self)
    }
}
