//! The catalogue of GPU facts: every fact nvq reads from a GPU, as one
//! [`Fact`] with one [`FieldInfo`] (name, aliases, unit, kind, help).
//!
//! Views name facts by this enum, never by string: `--query-gpu`'s fields
//! are the facts that are not [`FieldInfo::internal`], in `--help-query-gpu`
//! order; the `-q` report, the monitors, the table and the exporter profiles
//! name the facts they show. Each fact has exactly one reader,
//! `source::gpu::registry::reader` (an exhaustive `match`, so a fact without
//! a reader does not compile), and one description, [`Fact::info`].

use super::field::{FieldInfo, FieldKind};

/// Drivers before 535 named the clock event reasons `clocks_throttle_reasons.*`.
pub const EVENT_REASONS_RENAMED_IN: u32 = 535;

/// A GPU fact. The variants are in `--help-query-gpu` order, the internal
/// facts (those some view needs but `--query-gpu` does not offer) last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fact {
    /// `timestamp`
    Timestamp,
    /// `timestamp.epoch`
    TimestampEpoch,
    /// `driver_version`
    DriverVersion,
    /// `kmd_version`
    KmdVersion,
    /// `vgpu_driver_capability.heterogenous_multivGPU`
    VgpuDriverCapabilityHeterogenousMultivGpu,
    /// `count`
    Count,
    /// `name`
    Name,
    /// `serial`
    Serial,
    /// `uuid`
    Uuid,
    /// `pci.bus_id`
    PciBusId,
    /// `pci.domain`
    PciDomain,
    /// `pci.bus`
    PciBus,
    /// `pci.device`
    PciDevice,
    /// `pci.baseClass`
    PciBaseClass,
    /// `pci.subClass`
    PciSubClass,
    /// `pci.device_id`
    PciDeviceId,
    /// `pci.sub_device_id`
    PciSubDeviceId,
    /// `vgpu_device_capability.fractional_multiVgpu`
    VgpuDeviceCapabilityFractionalMultiVgpu,
    /// `vgpu_device_capability.heterogeneous_timeSlice_profile`
    VgpuDeviceCapabilityHeterogeneousTimeSliceProfile,
    /// `vgpu_device_capability.heterogeneous_timeSlice_sizes`
    VgpuDeviceCapabilityHeterogeneousTimeSliceSizes,
    /// `vgpu_device_capability.homogeneous_placements`
    VgpuDeviceCapabilityHomogeneousPlacements,
    /// `vgpu_device_capability.mig_timeSlicing`
    VgpuDeviceCapabilityMigTimeSlicing,
    /// `vgpu_device_capability.mig_timeSlicing_mode`
    VgpuDeviceCapabilityMigTimeSlicingMode,
    /// `pcie.link.gen.current`
    PcieLinkGenCurrent,
    /// `pcie.link.gen.gpucurrent`
    PcieLinkGenGpucurrent,
    /// `pcie.link.gen.max`
    PcieLinkGenMax,
    /// `pcie.link.gen.gpumax`
    PcieLinkGenGpumax,
    /// `pcie.link.gen.hostmax`
    PcieLinkGenHostmax,
    /// `pcie.link.width.current`
    PcieLinkWidthCurrent,
    /// `pcie.link.width.max`
    PcieLinkWidthMax,
    /// `index`
    Index,
    /// `display_mode`
    DisplayMode,
    /// `display_attached`
    DisplayAttached,
    /// `display_active`
    DisplayActive,
    /// `persistence_mode`
    PersistenceMode,
    /// `addressing_mode`
    AddressingMode,
    /// `accounting.mode`
    AccountingMode,
    /// `accounting.buffer_size`
    AccountingBufferSize,
    /// `driver_model.current`
    DriverModelCurrent,
    /// `driver_model.pending`
    DriverModelPending,
    /// `vbios_version`
    VbiosVersion,
    /// `inforom.img`
    InforomImg,
    /// `inforom.oem`
    InforomOem,
    /// `inforom.ecc`
    InforomEcc,
    /// `inforom.pwr`
    InforomPwr,
    /// `reset_status.reset_required`
    ResetStatusResetRequired,
    /// `reset_status.drain_and_reset_recommended`
    ResetStatusDrainAndResetRecommended,
    /// `inforom.checksum_validation`
    InforomChecksumValidation,
    /// `gpu_recovery_action`
    GpuRecoveryAction,
    /// `gom.current`
    GomCurrent,
    /// `gom.pending`
    GomPending,
    /// `fan.speed`
    FanSpeed,
    /// `pstate`
    Pstate,
    /// `clocks_event_reasons.supported`
    ClocksEventReasonsSupported,
    /// `clocks_event_reasons.active`
    ClocksEventReasonsActive,
    /// `clocks_event_reasons.gpu_idle`
    ClocksEventReasonsGpuIdle,
    /// `clocks_event_reasons.applications_clocks_setting`
    ClocksEventReasonsApplicationsClocksSetting,
    /// `clocks_event_reasons.sw_power_cap`
    ClocksEventReasonsSwPowerCap,
    /// `clocks_event_reasons.hw_slowdown`
    ClocksEventReasonsHwSlowdown,
    /// `clocks_event_reasons.hw_thermal_slowdown`
    ClocksEventReasonsHwThermalSlowdown,
    /// `clocks_event_reasons.hw_power_brake_slowdown`
    ClocksEventReasonsHwPowerBrakeSlowdown,
    /// `clocks_event_reasons.sw_thermal_slowdown`
    ClocksEventReasonsSwThermalSlowdown,
    /// `clocks_event_reasons.sync_boost`
    ClocksEventReasonsSyncBoost,
    /// `clocks_event_reasons_counters.sw_power_cap`
    ClocksEventReasonsCountersSwPowerCap,
    /// `clocks_event_reasons_counters.sync_boost`
    ClocksEventReasonsCountersSyncBoost,
    /// `clocks_event_reasons_counters.sw_thermal_slowdown`
    ClocksEventReasonsCountersSwThermalSlowdown,
    /// `clocks_event_reasons_counters.hw_thermal_slowdown`
    ClocksEventReasonsCountersHwThermalSlowdown,
    /// `clocks_event_reasons_counters.hw_power_brake_slowdown`
    ClocksEventReasonsCountersHwPowerBrakeSlowdown,
    /// `memory.total`
    MemoryTotal,
    /// `memory.reserved`
    MemoryReserved,
    /// `memory.used`
    MemoryUsed,
    /// `memory.free`
    MemoryFree,
    /// `memory.used.percent`
    MemoryUsedPercent,
    /// `memory.derived`
    MemoryDerived,
    /// `compute_apps.count`
    ComputeAppsCount,
    /// `compute_mode`
    ComputeMode,
    /// `compute_cap`
    ComputeCap,
    /// `utilization.gpu`
    UtilizationGpu,
    /// `utilization.memory`
    UtilizationMemory,
    /// `utilization.encoder`
    UtilizationEncoder,
    /// `utilization.decoder`
    UtilizationDecoder,
    /// `utilization.jpeg`
    UtilizationJpeg,
    /// `utilization.ofa`
    UtilizationOfa,
    /// `encoder.stats.sessionCount`
    EncoderStatsSessionCount,
    /// `encoder.stats.averageFps`
    EncoderStatsAverageFps,
    /// `encoder.stats.averageLatency`
    EncoderStatsAverageLatency,
    /// `dramEncryption.mode.current`
    DramEncryptionModeCurrent,
    /// `dramEncryption.mode.pending`
    DramEncryptionModePending,
    /// `ecc.mode.current`
    EccModeCurrent,
    /// `ecc.mode.pending`
    EccModePending,
    /// `ecc.errors.corrected.volatile.device_memory`
    EccErrorsCorrectedVolatileDeviceMemory,
    /// `ecc.errors.corrected.volatile.dram`
    EccErrorsCorrectedVolatileDram,
    /// `ecc.errors.corrected.volatile.register_file`
    EccErrorsCorrectedVolatileRegisterFile,
    /// `ecc.errors.corrected.volatile.l1_cache`
    EccErrorsCorrectedVolatileL1Cache,
    /// `ecc.errors.corrected.volatile.l2_cache`
    EccErrorsCorrectedVolatileL2Cache,
    /// `ecc.errors.corrected.volatile.texture_memory`
    EccErrorsCorrectedVolatileTextureMemory,
    /// `ecc.errors.corrected.volatile.cbu`
    EccErrorsCorrectedVolatileCbu,
    /// `ecc.errors.corrected.volatile.sram`
    EccErrorsCorrectedVolatileSram,
    /// `ecc.errors.corrected.volatile.total`
    EccErrorsCorrectedVolatileTotal,
    /// `ecc.errors.corrected.aggregate.device_memory`
    EccErrorsCorrectedAggregateDeviceMemory,
    /// `ecc.errors.corrected.aggregate.dram`
    EccErrorsCorrectedAggregateDram,
    /// `ecc.errors.corrected.aggregate.register_file`
    EccErrorsCorrectedAggregateRegisterFile,
    /// `ecc.errors.corrected.aggregate.l1_cache`
    EccErrorsCorrectedAggregateL1Cache,
    /// `ecc.errors.corrected.aggregate.l2_cache`
    EccErrorsCorrectedAggregateL2Cache,
    /// `ecc.errors.corrected.aggregate.texture_memory`
    EccErrorsCorrectedAggregateTextureMemory,
    /// `ecc.errors.corrected.aggregate.cbu`
    EccErrorsCorrectedAggregateCbu,
    /// `ecc.errors.corrected.aggregate.sram`
    EccErrorsCorrectedAggregateSram,
    /// `ecc.errors.corrected.aggregate.total`
    EccErrorsCorrectedAggregateTotal,
    /// `ecc.errors.uncorrected.volatile.device_memory`
    EccErrorsUncorrectedVolatileDeviceMemory,
    /// `ecc.errors.uncorrected.volatile.dram`
    EccErrorsUncorrectedVolatileDram,
    /// `ecc.errors.uncorrected.volatile.register_file`
    EccErrorsUncorrectedVolatileRegisterFile,
    /// `ecc.errors.uncorrected.volatile.l1_cache`
    EccErrorsUncorrectedVolatileL1Cache,
    /// `ecc.errors.uncorrected.volatile.l2_cache`
    EccErrorsUncorrectedVolatileL2Cache,
    /// `ecc.errors.uncorrected.volatile.texture_memory`
    EccErrorsUncorrectedVolatileTextureMemory,
    /// `ecc.errors.uncorrected.volatile.cbu`
    EccErrorsUncorrectedVolatileCbu,
    /// `ecc.errors.uncorrected.volatile.sram`
    EccErrorsUncorrectedVolatileSram,
    /// `ecc.errors.uncorrected.volatile.total`
    EccErrorsUncorrectedVolatileTotal,
    /// `ecc.errors.uncorrected.aggregate.device_memory`
    EccErrorsUncorrectedAggregateDeviceMemory,
    /// `ecc.errors.uncorrected.aggregate.dram`
    EccErrorsUncorrectedAggregateDram,
    /// `ecc.errors.uncorrected.aggregate.register_file`
    EccErrorsUncorrectedAggregateRegisterFile,
    /// `ecc.errors.uncorrected.aggregate.l1_cache`
    EccErrorsUncorrectedAggregateL1Cache,
    /// `ecc.errors.uncorrected.aggregate.l2_cache`
    EccErrorsUncorrectedAggregateL2Cache,
    /// `ecc.errors.uncorrected.aggregate.texture_memory`
    EccErrorsUncorrectedAggregateTextureMemory,
    /// `ecc.errors.uncorrected.aggregate.cbu`
    EccErrorsUncorrectedAggregateCbu,
    /// `ecc.errors.uncorrected.aggregate.sram`
    EccErrorsUncorrectedAggregateSram,
    /// `ecc.errors.uncorrected.aggregate.total`
    EccErrorsUncorrectedAggregateTotal,
    /// `ecc.errors.uncorrected.volatile.sram.parity`
    EccErrorsUncorrectedVolatileSramParity,
    /// `ecc.errors.uncorrected.volatile.sram.secded`
    EccErrorsUncorrectedVolatileSramSecded,
    /// `ecc.errors.uncorrected.aggregate.sram.parity`
    EccErrorsUncorrectedAggregateSramParity,
    /// `ecc.errors.uncorrected.aggregate.sram.secded`
    EccErrorsUncorrectedAggregateSramSecded,
    /// `ecc.errors.uncorrected.aggregate.sram.thresholdExceeded`
    EccErrorsUncorrectedAggregateSramThresholdExceeded,
    /// `ecc.errors.uncorrected.aggregate.sram.l2`
    EccErrorsUncorrectedAggregateSramL2,
    /// `ecc.errors.uncorrected.aggregate.sram.sm`
    EccErrorsUncorrectedAggregateSramSm,
    /// `ecc.errors.uncorrected.aggregate.sram.mcu`
    EccErrorsUncorrectedAggregateSramMcu,
    /// `ecc.errors.uncorrected.aggregate.sram.pcie`
    EccErrorsUncorrectedAggregateSramPcie,
    /// `ecc.errors.uncorrected.aggregate.sram.other`
    EccErrorsUncorrectedAggregateSramOther,
    /// `retired_pages.single_bit_ecc.count`
    RetiredPagesSingleBitEccCount,
    /// `retired_pages.double_bit.count`
    RetiredPagesDoubleBitCount,
    /// `retired_pages.pending`
    RetiredPagesPending,
    /// `remapped_rows.correctable`
    RemappedRowsCorrectable,
    /// `remapped_rows.correctable_inactive`
    RemappedRowsCorrectableInactive,
    /// `remapped_rows.uncorrectable`
    RemappedRowsUncorrectable,
    /// `remapped_rows.uncorrectable_inactive`
    RemappedRowsUncorrectableInactive,
    /// `remapped_rows.pending`
    RemappedRowsPending,
    /// `remapped_rows.failure`
    RemappedRowsFailure,
    /// `remapped_rows.histogram.max`
    RemappedRowsHistogramMax,
    /// `remapped_rows.histogram.high`
    RemappedRowsHistogramHigh,
    /// `remapped_rows.histogram.partial`
    RemappedRowsHistogramPartial,
    /// `remapped_rows.histogram.low`
    RemappedRowsHistogramLow,
    /// `remapped_rows.histogram.none`
    RemappedRowsHistogramNone,
    /// `temperature.gpu`
    TemperatureGpu,
    /// `temperature.gpu.tlimit`
    TemperatureGpuTlimit,
    /// `temperature.memory`
    TemperatureMemory,
    /// `power.management`
    PowerManagement,
    /// `power.draw`
    PowerDraw,
    /// `power.draw.average`
    PowerDrawAverage,
    /// `power.draw.instant`
    PowerDrawInstant,
    /// `power.limit`
    PowerLimit,
    /// `enforced.power.limit`
    EnforcedPowerLimit,
    /// `power.default_limit`
    PowerDefaultLimit,
    /// `power.min_limit`
    PowerMinLimit,
    /// `power.max_limit`
    PowerMaxLimit,
    /// `module.power.draw.average`
    ModulePowerDrawAverage,
    /// `module.power.draw.instant`
    ModulePowerDrawInstant,
    /// `module.power.limit`
    ModulePowerLimit,
    /// `module.enforced.power.limit`
    ModuleEnforcedPowerLimit,
    /// `module.power.default_limit`
    ModulePowerDefaultLimit,
    /// `module.power.min_limit`
    ModulePowerMinLimit,
    /// `module.power.max_limit`
    ModulePowerMaxLimit,
    /// `gpu.base.current`
    GpuBaseCurrent,
    /// `gpu.base.requested`
    GpuBaseRequested,
    /// `gpu.base.default`
    GpuBaseDefault,
    /// `gpu.base.min`
    GpuBaseMin,
    /// `gpu.base.max`
    GpuBaseMax,
    /// `power_smoothing.tmp_floor`
    PowerSmoothingTmpFloor,
    /// `power_smoothing.tmp_ceil`
    PowerSmoothingTmpCeil,
    /// `power_smoothing.hw_lifetime_remaining_percent`
    PowerSmoothingHwLifetimeRemainingPercent,
    /// `power_smoothing.enabled`
    PowerSmoothingEnabled,
    /// `power_smoothing.delayed_power_smoothing_supported`
    PowerSmoothingDelayedPowerSmoothingSupported,
    /// `power_smoothing.soc_power_smoothing_enabled`
    PowerSmoothingSocPowerSmoothingEnabled,
    /// `power_smoothing.priv_level`
    PowerSmoothingPrivLevel,
    /// `power_smoothing.imm_ramp_down`
    PowerSmoothingImmRampDown,
    /// `power_smoothing.max_percent_tmp_floor`
    PowerSmoothingMaxPercentTmpFloor,
    /// `power_smoothing.min_percent_tmp_floor`
    PowerSmoothingMinPercentTmpFloor,
    /// `power_smoothing.primary_power_floor`
    PowerSmoothingPrimaryPowerFloor,
    /// `power_smoothing.secondary_power_floor`
    PowerSmoothingSecondaryPowerFloor,
    /// `power_smoothing.min_primary_floor_activation_offset`
    PowerSmoothingMinPrimaryFloorActivationOffset,
    /// `power_smoothing.min_primary_floor_activation_point`
    PowerSmoothingMinPrimaryFloorActivationPoint,
    /// `power_smoothing.window_multiplier`
    PowerSmoothingWindowMultiplier,
    /// `power_smoothing.num_preset_profiles`
    PowerSmoothingNumPresetProfiles,
    /// `power_smoothing.curr_profile.percent_tmp_floor`
    PowerSmoothingCurrProfilePercentTmpFloor,
    /// `power_smoothing.curr_profile.ramp_up_rate`
    PowerSmoothingCurrProfileRampUpRate,
    /// `power_smoothing.curr_profile.ramp_down_rate`
    PowerSmoothingCurrProfileRampDownRate,
    /// `power_smoothing.curr_profile.ramp_down_hysteresis`
    PowerSmoothingCurrProfileRampDownHysteresis,
    /// `power_smoothing.curr_profile.secondary_power_floor`
    PowerSmoothingCurrProfileSecondaryPowerFloor,
    /// `power_smoothing.curr_profile.primary_floor_act_window_multiplier`
    PowerSmoothingCurrProfilePrimaryFloorActWindowMultiplier,
    /// `power_smoothing.curr_profile.primary_floor_tar_window_multiplier`
    PowerSmoothingCurrProfilePrimaryFloorTarWindowMultiplier,
    /// `power_smoothing.curr_profile.primary_floor_act_offset`
    PowerSmoothingCurrProfilePrimaryFloorActOffset,
    /// `power_smoothing.active_profile`
    PowerSmoothingActiveProfile,
    /// `power_smoothing.admin_override.percent_tmp_floor`
    PowerSmoothingAdminOverridePercentTmpFloor,
    /// `power_smoothing.admin_override.ramp_up_rate`
    PowerSmoothingAdminOverrideRampUpRate,
    /// `power_smoothing.admin_override.ramp_down_rate`
    PowerSmoothingAdminOverrideRampDownRate,
    /// `power_smoothing.admin_override.ramp_down_hysteresis`
    PowerSmoothingAdminOverrideRampDownHysteresis,
    /// `power_smoothing.admin_override.secondary_power_floor`
    PowerSmoothingAdminOverrideSecondaryPowerFloor,
    /// `power_smoothing.admin_override.primary_floor_act_window_multiplier`
    PowerSmoothingAdminOverridePrimaryFloorActWindowMultiplier,
    /// `power_smoothing.admin_override.primary_floor_tar_window_multiplier`
    PowerSmoothingAdminOverridePrimaryFloorTarWindowMultiplier,
    /// `power_smoothing.admin_override.primary_floor_act_offset`
    PowerSmoothingAdminOverridePrimaryFloorActOffset,
    /// `edpp_multiplier`
    EdppMultiplier,
    /// `clocks.current.graphics`
    ClocksCurrentGraphics,
    /// `clocks.current.sm`
    ClocksCurrentSm,
    /// `clocks.current.memory`
    ClocksCurrentMemory,
    /// `clocks.current.video`
    ClocksCurrentVideo,
    /// `clocks.applications.graphics`
    ClocksApplicationsGraphics,
    /// `clocks.applications.memory`
    ClocksApplicationsMemory,
    /// `clocks.default_applications.graphics`
    ClocksDefaultApplicationsGraphics,
    /// `clocks.default_applications.memory`
    ClocksDefaultApplicationsMemory,
    /// `clocks.max.graphics`
    ClocksMaxGraphics,
    /// `clocks.max.sm`
    ClocksMaxSm,
    /// `clocks.max.memory`
    ClocksMaxMemory,
    /// `mig.mode.current`
    MigModeCurrent,
    /// `mig.mode.pending`
    MigModePending,
    /// `gsp.mode.current`
    GspModeCurrent,
    /// `gsp.mode.default`
    GspModeDefault,
    /// `c2c.mode`
    C2cMode,
    /// `protected_memory.total`
    ProtectedMemoryTotal,
    /// `protected_memory.used`
    ProtectedMemoryUsed,
    /// `protected_memory.free`
    ProtectedMemoryFree,
    /// `fabric.state`
    FabricState,
    /// `fabric.status`
    FabricStatus,
    /// `fabric.cliqueId`
    FabricCliqueId,
    /// `fabric.clusterUuid`
    FabricClusterUuid,
    /// `fabric.health.summary`
    FabricHealthSummary,
    /// `fabric.health.bandwidth`
    FabricHealthBandwidth,
    /// `fabric.health.route_recovery_in_progress`
    FabricHealthRouteRecoveryInProgress,
    /// `fabric.health.route_unhealthy`
    FabricHealthRouteUnhealthy,
    /// `fabric.health.access_timeout_recovery`
    FabricHealthAccessTimeoutRecovery,
    /// `fabric.health.incorrect_configuration`
    FabricHealthIncorrectConfiguration,
    /// `fabric.health.partition_assigned`
    FabricHealthPartitionAssigned,
    /// `platform.chassis_serial_number`
    PlatformChassisSerialNumber,
    /// `platform.slot_number`
    PlatformSlotNumber,
    /// `platform.tray_index`
    PlatformTrayIndex,
    /// `platform.host_id`
    PlatformHostId,
    /// `platform.peer_type`
    PlatformPeerType,
    /// `platform.module_id`
    PlatformModuleId,
    /// `platform.gpu_fabric_guid`
    PlatformGpuFabricGuid,
    /// `hostname`
    Hostname,
    /// `bbx.time_run`
    BbxTimeRun,
    // The internal facts: no `--query-gpu` field, read by other views.
    /// `bar1_memory.total` (internal)
    Bar1MemoryTotal,
    /// `bar1_memory.used` (internal)
    Bar1MemoryUsed,
    /// `bar1_memory.free` (internal)
    Bar1MemoryFree,
    /// `pcie.replay_counter` (internal)
    PcieReplayCounter,
    /// `pcie.replay_rollover_counter` (internal)
    PcieReplayRolloverCounter,
    /// `pcie.tx_throughput` (internal)
    PcieTxThroughput,
    /// `pcie.rx_throughput` (internal)
    PcieRxThroughput,
    /// `memory_power.average` (internal)
    MemoryPowerAverage,
    /// `memory_power.instant` (internal)
    MemoryPowerInstant,
    /// `minor_number` (internal)
    MinorNumber,
    /// `brand` (internal)
    Brand,
    /// `architecture` (internal)
    Architecture,
    /// `multigpu_board` (internal)
    MultiGpuBoard,
    /// `board_id` (internal)
    BoardId,
    /// `board_part_number` (internal)
    BoardPartNumber,
    /// `module_id` (internal)
    ModuleId,
    /// `pdi` (internal)
    Pdi,
    /// `repair_status.channel_repair_pending` (internal)
    ChannelRepairPending,
    /// `repair_status.tpc_repair_pending` (internal)
    TpcRepairPending,
    /// `unrepairable_memory` (internal)
    UnrepairableMemory,
    /// `capabilities.egm` (internal)
    Egm,
    /// `inforom.bbx_flush.latest_timestamp` (internal)
    BbxFlushTimestamp,
    /// `inforom.bbx_flush.latest_duration` (internal)
    BbxFlushDuration,
    /// `virtualization_mode` (internal)
    VirtualizationMode,
    /// `host_vgpu_mode` (internal)
    HostVgpuMode,
    /// `vgpu_heterogeneous_mode` (internal)
    VgpuHeterogeneousMode,
    /// `bridge_chip.type` (internal)
    BridgeChipType,
    /// `bridge_chip.firmware` (internal)
    BridgeChipFirmware,
    /// `gsp_firmware_version` (internal)
    GspFirmwareVersion,
    /// `pcie.atomic_caps_inbound` (internal)
    PcieAtomicCapsInbound,
    /// `pcie.atomic_caps_outbound` (internal)
    PcieAtomicCapsOutbound,
    /// `fbc_stats.session_count` (internal)
    FbcSessionCount,
    /// `fbc_stats.average_fps` (internal)
    FbcAverageFps,
    /// `fbc_stats.average_latency` (internal)
    FbcAverageLatency,
    /// `temperature.shutdown_threshold` (internal)
    TemperatureShutdown,
    /// `temperature.slowdown_threshold` (internal)
    TemperatureSlowdown,
    /// `temperature.gpu_max_threshold` (internal)
    TemperatureGpuMax,
    /// `temperature.memory_max_threshold` (internal)
    TemperatureMemoryMax,
    /// `temperature.target` (internal)
    TemperatureTarget,
    /// `temperature.acoustic_min` (internal)
    TemperatureAcousticMin,
    /// `temperature.acoustic_max` (internal)
    TemperatureAcousticMax,
    /// `clocks.max.video` (internal)
    ClocksMaxVideo,
    /// `clocks.max_boost.graphics` (internal)
    ClocksMaxBoostGraphics,
    /// `clocks.auto_boost` (internal)
    AutoBoost,
    /// `clocks.auto_boost_default` (internal)
    AutoBoostDefault,
    /// `power.management_support` (internal)
    PowerManagementSupport,
    /// `power_smoothing.state` (internal)
    PowerSmoothingState,
    /// `power_profiles.requested` (internal)
    PowerProfilesRequested,
    /// `power_profiles.enforced` (internal)
    PowerProfilesEnforced,
}

impl Fact {
    /// How many facts there are.
    pub const COUNT: usize = Fact::PowerProfilesEnforced as usize + 1;

    /// How many facts are `--query-gpu` fields: the first ones.
    pub const FIELDS: usize = Fact::Bar1MemoryTotal as usize;

    /// Every fact, in order (`Fact::ALL[f as usize] == f`).
    pub const ALL: [Fact; Fact::COUNT] = [
        Fact::Timestamp,
        Fact::TimestampEpoch,
        Fact::DriverVersion,
        Fact::KmdVersion,
        Fact::VgpuDriverCapabilityHeterogenousMultivGpu,
        Fact::Count,
        Fact::Name,
        Fact::Serial,
        Fact::Uuid,
        Fact::PciBusId,
        Fact::PciDomain,
        Fact::PciBus,
        Fact::PciDevice,
        Fact::PciBaseClass,
        Fact::PciSubClass,
        Fact::PciDeviceId,
        Fact::PciSubDeviceId,
        Fact::VgpuDeviceCapabilityFractionalMultiVgpu,
        Fact::VgpuDeviceCapabilityHeterogeneousTimeSliceProfile,
        Fact::VgpuDeviceCapabilityHeterogeneousTimeSliceSizes,
        Fact::VgpuDeviceCapabilityHomogeneousPlacements,
        Fact::VgpuDeviceCapabilityMigTimeSlicing,
        Fact::VgpuDeviceCapabilityMigTimeSlicingMode,
        Fact::PcieLinkGenCurrent,
        Fact::PcieLinkGenGpucurrent,
        Fact::PcieLinkGenMax,
        Fact::PcieLinkGenGpumax,
        Fact::PcieLinkGenHostmax,
        Fact::PcieLinkWidthCurrent,
        Fact::PcieLinkWidthMax,
        Fact::Index,
        Fact::DisplayMode,
        Fact::DisplayAttached,
        Fact::DisplayActive,
        Fact::PersistenceMode,
        Fact::AddressingMode,
        Fact::AccountingMode,
        Fact::AccountingBufferSize,
        Fact::DriverModelCurrent,
        Fact::DriverModelPending,
        Fact::VbiosVersion,
        Fact::InforomImg,
        Fact::InforomOem,
        Fact::InforomEcc,
        Fact::InforomPwr,
        Fact::ResetStatusResetRequired,
        Fact::ResetStatusDrainAndResetRecommended,
        Fact::InforomChecksumValidation,
        Fact::GpuRecoveryAction,
        Fact::GomCurrent,
        Fact::GomPending,
        Fact::FanSpeed,
        Fact::Pstate,
        Fact::ClocksEventReasonsSupported,
        Fact::ClocksEventReasonsActive,
        Fact::ClocksEventReasonsGpuIdle,
        Fact::ClocksEventReasonsApplicationsClocksSetting,
        Fact::ClocksEventReasonsSwPowerCap,
        Fact::ClocksEventReasonsHwSlowdown,
        Fact::ClocksEventReasonsHwThermalSlowdown,
        Fact::ClocksEventReasonsHwPowerBrakeSlowdown,
        Fact::ClocksEventReasonsSwThermalSlowdown,
        Fact::ClocksEventReasonsSyncBoost,
        Fact::ClocksEventReasonsCountersSwPowerCap,
        Fact::ClocksEventReasonsCountersSyncBoost,
        Fact::ClocksEventReasonsCountersSwThermalSlowdown,
        Fact::ClocksEventReasonsCountersHwThermalSlowdown,
        Fact::ClocksEventReasonsCountersHwPowerBrakeSlowdown,
        Fact::MemoryTotal,
        Fact::MemoryReserved,
        Fact::MemoryUsed,
        Fact::MemoryFree,
        Fact::MemoryUsedPercent,
        Fact::MemoryDerived,
        Fact::ComputeAppsCount,
        Fact::ComputeMode,
        Fact::ComputeCap,
        Fact::UtilizationGpu,
        Fact::UtilizationMemory,
        Fact::UtilizationEncoder,
        Fact::UtilizationDecoder,
        Fact::UtilizationJpeg,
        Fact::UtilizationOfa,
        Fact::EncoderStatsSessionCount,
        Fact::EncoderStatsAverageFps,
        Fact::EncoderStatsAverageLatency,
        Fact::DramEncryptionModeCurrent,
        Fact::DramEncryptionModePending,
        Fact::EccModeCurrent,
        Fact::EccModePending,
        Fact::EccErrorsCorrectedVolatileDeviceMemory,
        Fact::EccErrorsCorrectedVolatileDram,
        Fact::EccErrorsCorrectedVolatileRegisterFile,
        Fact::EccErrorsCorrectedVolatileL1Cache,
        Fact::EccErrorsCorrectedVolatileL2Cache,
        Fact::EccErrorsCorrectedVolatileTextureMemory,
        Fact::EccErrorsCorrectedVolatileCbu,
        Fact::EccErrorsCorrectedVolatileSram,
        Fact::EccErrorsCorrectedVolatileTotal,
        Fact::EccErrorsCorrectedAggregateDeviceMemory,
        Fact::EccErrorsCorrectedAggregateDram,
        Fact::EccErrorsCorrectedAggregateRegisterFile,
        Fact::EccErrorsCorrectedAggregateL1Cache,
        Fact::EccErrorsCorrectedAggregateL2Cache,
        Fact::EccErrorsCorrectedAggregateTextureMemory,
        Fact::EccErrorsCorrectedAggregateCbu,
        Fact::EccErrorsCorrectedAggregateSram,
        Fact::EccErrorsCorrectedAggregateTotal,
        Fact::EccErrorsUncorrectedVolatileDeviceMemory,
        Fact::EccErrorsUncorrectedVolatileDram,
        Fact::EccErrorsUncorrectedVolatileRegisterFile,
        Fact::EccErrorsUncorrectedVolatileL1Cache,
        Fact::EccErrorsUncorrectedVolatileL2Cache,
        Fact::EccErrorsUncorrectedVolatileTextureMemory,
        Fact::EccErrorsUncorrectedVolatileCbu,
        Fact::EccErrorsUncorrectedVolatileSram,
        Fact::EccErrorsUncorrectedVolatileTotal,
        Fact::EccErrorsUncorrectedAggregateDeviceMemory,
        Fact::EccErrorsUncorrectedAggregateDram,
        Fact::EccErrorsUncorrectedAggregateRegisterFile,
        Fact::EccErrorsUncorrectedAggregateL1Cache,
        Fact::EccErrorsUncorrectedAggregateL2Cache,
        Fact::EccErrorsUncorrectedAggregateTextureMemory,
        Fact::EccErrorsUncorrectedAggregateCbu,
        Fact::EccErrorsUncorrectedAggregateSram,
        Fact::EccErrorsUncorrectedAggregateTotal,
        Fact::EccErrorsUncorrectedVolatileSramParity,
        Fact::EccErrorsUncorrectedVolatileSramSecded,
        Fact::EccErrorsUncorrectedAggregateSramParity,
        Fact::EccErrorsUncorrectedAggregateSramSecded,
        Fact::EccErrorsUncorrectedAggregateSramThresholdExceeded,
        Fact::EccErrorsUncorrectedAggregateSramL2,
        Fact::EccErrorsUncorrectedAggregateSramSm,
        Fact::EccErrorsUncorrectedAggregateSramMcu,
        Fact::EccErrorsUncorrectedAggregateSramPcie,
        Fact::EccErrorsUncorrectedAggregateSramOther,
        Fact::RetiredPagesSingleBitEccCount,
        Fact::RetiredPagesDoubleBitCount,
        Fact::RetiredPagesPending,
        Fact::RemappedRowsCorrectable,
        Fact::RemappedRowsCorrectableInactive,
        Fact::RemappedRowsUncorrectable,
        Fact::RemappedRowsUncorrectableInactive,
        Fact::RemappedRowsPending,
        Fact::RemappedRowsFailure,
        Fact::RemappedRowsHistogramMax,
        Fact::RemappedRowsHistogramHigh,
        Fact::RemappedRowsHistogramPartial,
        Fact::RemappedRowsHistogramLow,
        Fact::RemappedRowsHistogramNone,
        Fact::TemperatureGpu,
        Fact::TemperatureGpuTlimit,
        Fact::TemperatureMemory,
        Fact::PowerManagement,
        Fact::PowerDraw,
        Fact::PowerDrawAverage,
        Fact::PowerDrawInstant,
        Fact::PowerLimit,
        Fact::EnforcedPowerLimit,
        Fact::PowerDefaultLimit,
        Fact::PowerMinLimit,
        Fact::PowerMaxLimit,
        Fact::ModulePowerDrawAverage,
        Fact::ModulePowerDrawInstant,
        Fact::ModulePowerLimit,
        Fact::ModuleEnforcedPowerLimit,
        Fact::ModulePowerDefaultLimit,
        Fact::ModulePowerMinLimit,
        Fact::ModulePowerMaxLimit,
        Fact::GpuBaseCurrent,
        Fact::GpuBaseRequested,
        Fact::GpuBaseDefault,
        Fact::GpuBaseMin,
        Fact::GpuBaseMax,
        Fact::PowerSmoothingTmpFloor,
        Fact::PowerSmoothingTmpCeil,
        Fact::PowerSmoothingHwLifetimeRemainingPercent,
        Fact::PowerSmoothingEnabled,
        Fact::PowerSmoothingDelayedPowerSmoothingSupported,
        Fact::PowerSmoothingSocPowerSmoothingEnabled,
        Fact::PowerSmoothingPrivLevel,
        Fact::PowerSmoothingImmRampDown,
        Fact::PowerSmoothingMaxPercentTmpFloor,
        Fact::PowerSmoothingMinPercentTmpFloor,
        Fact::PowerSmoothingPrimaryPowerFloor,
        Fact::PowerSmoothingSecondaryPowerFloor,
        Fact::PowerSmoothingMinPrimaryFloorActivationOffset,
        Fact::PowerSmoothingMinPrimaryFloorActivationPoint,
        Fact::PowerSmoothingWindowMultiplier,
        Fact::PowerSmoothingNumPresetProfiles,
        Fact::PowerSmoothingCurrProfilePercentTmpFloor,
        Fact::PowerSmoothingCurrProfileRampUpRate,
        Fact::PowerSmoothingCurrProfileRampDownRate,
        Fact::PowerSmoothingCurrProfileRampDownHysteresis,
        Fact::PowerSmoothingCurrProfileSecondaryPowerFloor,
        Fact::PowerSmoothingCurrProfilePrimaryFloorActWindowMultiplier,
        Fact::PowerSmoothingCurrProfilePrimaryFloorTarWindowMultiplier,
        Fact::PowerSmoothingCurrProfilePrimaryFloorActOffset,
        Fact::PowerSmoothingActiveProfile,
        Fact::PowerSmoothingAdminOverridePercentTmpFloor,
        Fact::PowerSmoothingAdminOverrideRampUpRate,
        Fact::PowerSmoothingAdminOverrideRampDownRate,
        Fact::PowerSmoothingAdminOverrideRampDownHysteresis,
        Fact::PowerSmoothingAdminOverrideSecondaryPowerFloor,
        Fact::PowerSmoothingAdminOverridePrimaryFloorActWindowMultiplier,
        Fact::PowerSmoothingAdminOverridePrimaryFloorTarWindowMultiplier,
        Fact::PowerSmoothingAdminOverridePrimaryFloorActOffset,
        Fact::EdppMultiplier,
        Fact::ClocksCurrentGraphics,
        Fact::ClocksCurrentSm,
        Fact::ClocksCurrentMemory,
        Fact::ClocksCurrentVideo,
        Fact::ClocksApplicationsGraphics,
        Fact::ClocksApplicationsMemory,
        Fact::ClocksDefaultApplicationsGraphics,
        Fact::ClocksDefaultApplicationsMemory,
        Fact::ClocksMaxGraphics,
        Fact::ClocksMaxSm,
        Fact::ClocksMaxMemory,
        Fact::MigModeCurrent,
        Fact::MigModePending,
        Fact::GspModeCurrent,
        Fact::GspModeDefault,
        Fact::C2cMode,
        Fact::ProtectedMemoryTotal,
        Fact::ProtectedMemoryUsed,
        Fact::ProtectedMemoryFree,
        Fact::FabricState,
        Fact::FabricStatus,
        Fact::FabricCliqueId,
        Fact::FabricClusterUuid,
        Fact::FabricHealthSummary,
        Fact::FabricHealthBandwidth,
        Fact::FabricHealthRouteRecoveryInProgress,
        Fact::FabricHealthRouteUnhealthy,
        Fact::FabricHealthAccessTimeoutRecovery,
        Fact::FabricHealthIncorrectConfiguration,
        Fact::FabricHealthPartitionAssigned,
        Fact::PlatformChassisSerialNumber,
        Fact::PlatformSlotNumber,
        Fact::PlatformTrayIndex,
        Fact::PlatformHostId,
        Fact::PlatformPeerType,
        Fact::PlatformModuleId,
        Fact::PlatformGpuFabricGuid,
        Fact::Hostname,
        Fact::BbxTimeRun,
        Fact::Bar1MemoryTotal,
        Fact::Bar1MemoryUsed,
        Fact::Bar1MemoryFree,
        Fact::PcieReplayCounter,
        Fact::PcieReplayRolloverCounter,
        Fact::PcieTxThroughput,
        Fact::PcieRxThroughput,
        Fact::MemoryPowerAverage,
        Fact::MemoryPowerInstant,
        Fact::MinorNumber,
        Fact::Brand,
        Fact::Architecture,
        Fact::MultiGpuBoard,
        Fact::BoardId,
        Fact::BoardPartNumber,
        Fact::ModuleId,
        Fact::Pdi,
        Fact::ChannelRepairPending,
        Fact::TpcRepairPending,
        Fact::UnrepairableMemory,
        Fact::Egm,
        Fact::BbxFlushTimestamp,
        Fact::BbxFlushDuration,
        Fact::VirtualizationMode,
        Fact::HostVgpuMode,
        Fact::VgpuHeterogeneousMode,
        Fact::BridgeChipType,
        Fact::BridgeChipFirmware,
        Fact::GspFirmwareVersion,
        Fact::PcieAtomicCapsInbound,
        Fact::PcieAtomicCapsOutbound,
        Fact::FbcSessionCount,
        Fact::FbcAverageFps,
        Fact::FbcAverageLatency,
        Fact::TemperatureShutdown,
        Fact::TemperatureSlowdown,
        Fact::TemperatureGpuMax,
        Fact::TemperatureMemoryMax,
        Fact::TemperatureTarget,
        Fact::TemperatureAcousticMin,
        Fact::TemperatureAcousticMax,
        Fact::ClocksMaxVideo,
        Fact::ClocksMaxBoostGraphics,
        Fact::AutoBoost,
        Fact::AutoBoostDefault,
        Fact::PowerManagementSupport,
        Fact::PowerSmoothingState,
        Fact::PowerProfilesRequested,
        Fact::PowerProfilesEnforced,
    ];

    /// What is known about this fact.
    pub fn info(self) -> &'static FieldInfo {
        &INFO[self as usize]
    }

    /// The fact's canonical name (`memory.used`).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The fact of this canonical name.
    pub fn by_name(name: &str) -> Option<Fact> {
        Fact::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The fact's description, declared once here ([`Fact::info`] is the
    /// same, kept in a table; this one is for tables built at compile time).
    pub const fn describe(self) -> FieldInfo {
        match self {
            Fact::Timestamp => FieldInfo::new(
                "timestamp",
                "When this row was read, as \"YYYY/MM/DD HH:MM:SS.mmm\" in local time.",
            )
            .timestamp(),
            Fact::TimestampEpoch => FieldInfo::new(
                "timestamp.epoch",
                "When this row was read, in seconds since 1970-01-01 UTC with milliseconds \
                 (1764620000.123): for plotting and for joining logs across time zones.",
            )
            .timestamp()
            .extension(),
            Fact::DriverVersion => FieldInfo::new(
                "driver_version",
                "Version string of the installed NVIDIA driver.",
            ),
            Fact::KmdVersion => FieldInfo::new(
                "kmd_version",
                "Version string of the kernel-mode part of the NVIDIA driver (newer name of \
                 driver_version).",
            ),
            Fact::VgpuDriverCapabilityHeterogenousMultivGpu => FieldInfo::new(
                "vgpu_driver_capability.heterogenous_multivGPU",
                "Yes when the driver can run vGPUs of different profiles side by side on one GPU.",
            )
            .heading(
                "vgpu_driver_capability",
                "Capabilities of the installed driver for virtual GPUs (vGPU host drivers only).",
            ),
            Fact::Count => FieldInfo::new(
                "count",
                "How many GPUs NVML sees; the same value on every row.",
            )
            .kind(FieldKind::GpuCount)
            .metric("gpus"),
            Fact::Name => FieldInfo::new(
                "name",
                "Product name of the GPU, as the board reports it.",
            )
            .aliases(&["gpu_name"]),
            Fact::Serial => FieldInfo::new(
                "serial",
                "Serial number printed on the board. All GPUs of a multi-GPU board share it.",
            )
            .aliases(&["gpu_serial"]),
            Fact::Uuid => FieldInfo::new(
                "uuid",
                "Globally unique identifier of the GPU (\"GPU-\" and 32 hex digits); it never \
                 changes and is unrelated to the board serial.",
            )
            .aliases(&["gpu_uuid"]),
            Fact::PciBusId => FieldInfo::new(
                "pci.bus_id",
                "PCI address of the GPU as domain:bus:device.function, in hexadecimal.",
            )
            .aliases(&["gpu_bus_id"]),
            Fact::PciDomain => FieldInfo::new(
                "pci.domain",
                "PCI domain of the GPU, in hexadecimal.",
            ),
            Fact::PciBus => FieldInfo::new(
                "pci.bus",
                "PCI bus number of the GPU, in hexadecimal.",
            ),
            Fact::PciDevice => FieldInfo::new(
                "pci.device",
                "PCI device number of the GPU, in hexadecimal.",
            ),
            Fact::PciBaseClass => FieldInfo::new(
                "pci.baseClass",
                "PCI base class code of the GPU, in hexadecimal.",
            ),
            Fact::PciSubClass => FieldInfo::new(
                "pci.subClass",
                "PCI sub-class code of the GPU, in hexadecimal.",
            ),
            Fact::PciDeviceId => FieldInfo::new(
                "pci.device_id",
                "PCI device id and vendor id of the GPU as one 32-bit hexadecimal number.",
            ),
            Fact::PciSubDeviceId => FieldInfo::new(
                "pci.sub_device_id",
                "PCI subsystem id of the board as one 32-bit hexadecimal number.",
            ),
            Fact::VgpuDeviceCapabilityFractionalMultiVgpu => FieldInfo::new(
                "vgpu_device_capability.fractional_multiVgpu",
                "Yes when fractional vGPU profiles can be mixed with others on this GPU.",
            )
            .heading(
                "vgpu_device_capability",
                "Capabilities of this GPU for virtual GPUs (vGPU host drivers only).",
            ),
            Fact::VgpuDeviceCapabilityHeterogeneousTimeSliceProfile => FieldInfo::new(
                "vgpu_device_capability.heterogeneous_timeSlice_profile",
                "Yes when time-sliced vGPUs of different profiles can share this GPU.",
            ),
            Fact::VgpuDeviceCapabilityHeterogeneousTimeSliceSizes => FieldInfo::new(
                "vgpu_device_capability.heterogeneous_timeSlice_sizes",
                "Yes when time-sliced vGPUs of different frame buffer sizes can share this GPU.",
            ),
            Fact::VgpuDeviceCapabilityHomogeneousPlacements => FieldInfo::new(
                "vgpu_device_capability.homogeneous_placements",
                "Yes when vGPUs of one profile can be placed at fixed positions on this GPU.",
            ),
            Fact::VgpuDeviceCapabilityMigTimeSlicing => FieldInfo::new(
                "vgpu_device_capability.mig_timeSlicing",
                "Yes when vGPUs can be time-sliced inside a MIG instance of this GPU.",
            ),
            Fact::VgpuDeviceCapabilityMigTimeSlicingMode => FieldInfo::new(
                "vgpu_device_capability.mig_timeSlicing_mode",
                "Yes when time slicing inside MIG instances is switched on for this GPU.",
            ),
            Fact::PcieLinkGenCurrent => FieldInfo::new(
                "pcie.link.gen.current",
                "PCIe generation the link runs at right now; it may drop while the GPU idles.",
            ),
            Fact::PcieLinkGenGpucurrent => FieldInfo::new(
                "pcie.link.gen.gpucurrent",
                "PCIe generation the GPU side of the link runs at right now.",
            ),
            Fact::PcieLinkGenMax => FieldInfo::new(
                "pcie.link.gen.max",
                "Highest PCIe generation this GPU and this slot can use together.",
            ),
            Fact::PcieLinkGenGpumax => FieldInfo::new(
                "pcie.link.gen.gpumax",
                "Highest PCIe generation the GPU itself supports.",
            ),
            Fact::PcieLinkGenHostmax => FieldInfo::new(
                "pcie.link.gen.hostmax",
                "Highest PCIe generation the host side of the link supports. (nvq has no NVML source \
                 for this value yet and prints [N/A].)",
            ),
            Fact::PcieLinkWidthCurrent => FieldInfo::new(
                "pcie.link.width.current",
                "Number of PCIe lanes the link uses right now; it may shrink while the GPU idles.",
            ),
            Fact::PcieLinkWidthMax => FieldInfo::new(
                "pcie.link.width.max",
                "Highest number of PCIe lanes this GPU and this slot can use together.",
            ),
            Fact::Index => FieldInfo::new(
                "index",
                "Position of the GPU in NVML's enumeration, from 0. It can change between boots.",
            )
            .kind(FieldKind::GpuIndex),
            Fact::DisplayMode => FieldInfo::new(
                "display_mode",
                "Whether a display is connected to the GPU (Enabled/Disabled). Drivers from 590 on \
                 report this field as deprecated.",
            ),
            Fact::DisplayAttached => FieldInfo::new(
                "display_attached",
                "Yes when a monitor is physically connected to one of the GPU's outputs.",
            ),
            Fact::DisplayActive => FieldInfo::new(
                "display_active",
                "Enabled when the GPU has a display set up (memory allocated for it), with or \
                 without a monitor attached.",
            ),
            Fact::PersistenceMode => FieldInfo::new(
                "persistence_mode",
                "Enabled when the driver stays loaded with no client attached, which makes starting \
                 GPU programs faster. Linux only.",
            ),
            Fact::AddressingMode => FieldInfo::new(
                "addressing_mode",
                "How the GPU reaches memory allocated by the CPU: \"HMM\" (the driver mirrors the \
                 CPU page tables), \"ATS\" (the GPU uses the CPU page tables directly) or \"None\". \
                 Linux only.",
            ),
            Fact::AccountingMode => FieldInfo::new(
                "accounting.mode",
                "Enabled when the driver keeps per-process usage records (see \
                 --help-query-accounted-apps).",
            ),
            Fact::AccountingBufferSize => FieldInfo::new(
                "accounting.buffer_size",
                "How many processes the accounting records can hold before the oldest ones are \
                 overwritten.",
            ),
            Fact::DriverModelCurrent => FieldInfo::new(
                "driver_model.current",
                "Windows driver model in use now (WDDM, TCC or MCDM). Not available on Linux.",
            )
            .heading(
                "driver_model",
                "Windows driver model of the GPU: WDDM for graphics, TCC or MCDM for compute. A \
                 switch takes effect after a reboot. Linux has a single driver model, so these \
                 fields are not available there.",
            ),
            Fact::DriverModelPending => FieldInfo::new(
                "driver_model.pending",
                "Windows driver model that takes over after the next reboot. Not available on Linux.",
            ),
            Fact::VbiosVersion => FieldInfo::new(
                "vbios_version",
                "Version of the video BIOS on the board.",
            ),
            Fact::InforomImg => FieldInfo::new(
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
            Fact::InforomOem => FieldInfo::new(
                "inforom.oem",
                "Version of the OEM configuration data in the inforom.",
            ),
            Fact::InforomEcc => FieldInfo::new(
                "inforom.ecc",
                "Version of the ECC error records in the inforom.",
            ),
            Fact::InforomPwr => FieldInfo::new(
                "inforom.pwr",
                "Version of the power management data in the inforom.",
            )
            .aliases(&["inforom.power"]),
            Fact::ResetStatusResetRequired => FieldInfo::new(
                "reset_status.reset_required",
                "Yes when the GPU must be reset before it can be used again.",
            )
            .heading(
                "reset_status",
                "Whether the GPU needs a reset, or a drain and a reset, to leave a bad state (older \
                 drivers only).",
            ),
            Fact::ResetStatusDrainAndResetRecommended => FieldInfo::new(
                "reset_status.drain_and_reset_recommended",
                "Yes when the driver advises moving work off the GPU and then resetting it.",
            ),
            Fact::InforomChecksumValidation => FieldInfo::new(
                "inforom.checksum_validation",
                "Result of checking the inforom's checksum: \"valid\" or \"invalid\".",
            ),
            Fact::GpuRecoveryAction => FieldInfo::new(
                "gpu_recovery_action",
                "What the driver advises to bring the GPU back from a bad state: None, Reset, \
                 Reboot, Drain P2P or Drain and Reset.",
            ),
            Fact::GomCurrent => FieldInfo::new(
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
            Fact::GomPending => FieldInfo::new(
                "gom.pending",
                "GPU operation mode that takes over after the next reboot.",
            )
            .aliases(&["gpu_operation_mode.pending"]),
            Fact::FanSpeed => FieldInfo::new(
                "fan.speed",
                "Speed the fan is asked to run at, as a percentage of its maximum; it can exceed \
                 100. A blocked fan may turn slower than this. Boards cooled by the chassis have no \
                 value.",
            )
            .unit("%"),
            Fact::Pstate => FieldInfo::new(
                "pstate",
                "Performance state of the GPU, from P0 (fastest) to P12 (slowest).",
            ),
            Fact::ClocksEventReasonsSupported => FieldInfo::new(
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
            Fact::ClocksEventReasonsActive => FieldInfo::new(
                "clocks_event_reasons.active",
                "Bit mask of the clock event reasons active right now (bits as in nvml.h).",
            )
            .aliases(&["clocks_throttle_reasons.active"])
            .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.active"),
            Fact::ClocksEventReasonsGpuIdle => FieldInfo::new(
                "clocks_event_reasons.gpu_idle",
                "Active when the clocks are low because nothing runs on the GPU.",
            )
            .aliases(&["clocks_throttle_reasons.gpu_idle"])
            .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.gpu_idle"),
            Fact::ClocksEventReasonsApplicationsClocksSetting => FieldInfo::new(
                "clocks_event_reasons.applications_clocks_setting",
                "Active when the clocks are held at the applications clocks set by the administrator.",
            )
            .aliases(&["clocks_throttle_reasons.applications_clocks_setting"])
            .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.applications_clocks_setting"),
            Fact::ClocksEventReasonsSwPowerCap => FieldInfo::new(
                "clocks_event_reasons.sw_power_cap",
                "Active when the driver lowers the clocks to keep power draw under the power limit.",
            )
            .aliases(&["clocks_throttle_reasons.sw_power_cap"])
            .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.sw_power_cap"),
            Fact::ClocksEventReasonsHwSlowdown => FieldInfo::new(
                "clocks_event_reasons.hw_slowdown",
                "Active when the hardware has cut the clocks by half or more, because of heat, an \
                 external power brake signal, or a power spike.",
            )
            .aliases(&["clocks_throttle_reasons.hw_slowdown"])
            .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.hw_slowdown"),
            Fact::ClocksEventReasonsHwThermalSlowdown => FieldInfo::new(
                "clocks_event_reasons.hw_thermal_slowdown",
                "Active when the hardware has cut the clocks by half or more because the GPU is too \
                 hot.",
            )
            .aliases(&["clocks_throttle_reasons.hw_thermal_slowdown"])
            .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.hw_thermal_slowdown"),
            Fact::ClocksEventReasonsHwPowerBrakeSlowdown => FieldInfo::new(
                "clocks_event_reasons.hw_power_brake_slowdown",
                "Active when the hardware has cut the clocks by half or more because the system \
                 asserted its power brake signal.",
            )
            .aliases(&["clocks_throttle_reasons.hw_power_brake_slowdown"])
            .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.hw_power_brake_slowdown"),
            Fact::ClocksEventReasonsSwThermalSlowdown => FieldInfo::new(
                "clocks_event_reasons.sw_thermal_slowdown",
                "Active when the driver lowers the clocks because the GPU is hotter than its maximum \
                 operating temperature.",
            )
            .aliases(&["clocks_throttle_reasons.sw_thermal_slowdown"])
            .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.sw_thermal_slowdown"),
            Fact::ClocksEventReasonsSyncBoost => FieldInfo::new(
                "clocks_event_reasons.sync_boost",
                "Active when the clocks are held to the lowest clocks of the GPU's sync boost group.",
            )
            .aliases(&["clocks_throttle_reasons.sync_boost"])
            .renamed(EVENT_REASONS_RENAMED_IN, "clocks_throttle_reasons.sync_boost"),
            Fact::ClocksEventReasonsCountersSwPowerCap => FieldInfo::new(
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
            Fact::ClocksEventReasonsCountersSyncBoost => FieldInfo::new(
                "clocks_event_reasons_counters.sync_boost",
                "Time the clocks were held to the slowest GPU of the sync boost group.",
            )
            .unit("us")
            .counter(),
            Fact::ClocksEventReasonsCountersSwThermalSlowdown => FieldInfo::new(
                "clocks_event_reasons_counters.sw_thermal_slowdown",
                "Time the driver spent lowering the clocks because the GPU was too hot.",
            )
            .unit("us")
            .counter(),
            Fact::ClocksEventReasonsCountersHwThermalSlowdown => FieldInfo::new(
                "clocks_event_reasons_counters.hw_thermal_slowdown",
                "Time the hardware spent cutting the clocks because the GPU was too hot.",
            )
            .unit("us")
            .counter(),
            Fact::ClocksEventReasonsCountersHwPowerBrakeSlowdown => FieldInfo::new(
                "clocks_event_reasons_counters.hw_power_brake_slowdown",
                "Time the hardware spent cutting the clocks because of the power brake signal.",
            )
            .unit("us")
            .counter(),
            Fact::MemoryTotal => FieldInfo::new(
                "memory.total",
                "Total frame buffer memory.",
            )
            .unit("MiB")
            .heading(
                "memory",
                "Frame buffer memory of the GPU. With ECC enabled some of it holds check bits; the \
                 driver also keeps a part for itself.",
            ),
            Fact::MemoryReserved => FieldInfo::new(
                "memory.reserved",
                "Memory the driver and firmware keep for themselves.",
            )
            .unit("MiB"),
            Fact::MemoryUsed => FieldInfo::new(
                "memory.used",
                "Memory allocated by running processes.",
            )
            .unit("MiB"),
            Fact::MemoryFree => FieldInfo::new(
                "memory.free",
                "Memory still free for allocation.",
            )
            .unit("MiB"),
            Fact::MemoryUsedPercent => FieldInfo::new(
                "memory.used.percent",
                "memory.used as a share of memory.total, in percent with two decimals \
                 (memory.used.percent > 90 is \"more than 90% full\").",
            )
            .aliases(&["memory.percent"])
            .unit("%")
            .extension(),
            Fact::MemoryDerived => FieldInfo::new(
                "memory.derived",
                "Whether the memory figures are derived: \"Yes\" when this row's memory.total, \
                 memory.used, memory.free and memory.used.percent are the system's memory, which a unified-memory GPU \
                 (DGX Spark's GB10, Jetson Thor) shares and for which NVML reports none: \
                 total MemTotal, free MemAvailable, used the difference (/proc/meminfo); \
                 \"No\" otherwise. Asking for it is what makes the query derive them: \
                 without it such a GPU's memory fields are [N/A], as in nvidia-smi.",
            )
            .extension(),
            Fact::ComputeAppsCount => FieldInfo::new(
                "compute_apps.count",
                "How many compute processes the GPU runs now (the rows --query-compute-apps would \
                 list for it).",
            )
            .aliases(&["processes.count"])
            .extension(),
            Fact::ComputeMode => FieldInfo::new(
                "compute_mode",
                "Who may create compute contexts: \"Default\" (any number of processes), \
                 \"Exclusive_Process\" (one process), \"Prohibited\" (none).",
            ),
            Fact::ComputeCap => FieldInfo::new(
                "compute_cap",
                "CUDA compute capability of the GPU, as major.minor.",
            ),
            Fact::UtilizationGpu => FieldInfo::new(
                "utilization.gpu",
                "Share of the last sampling period in which at least one kernel ran.",
            )
            .unit("%")
            .heading(
                "utilization",
                "How busy the GPU's engines were over the last sampling period, in percent. Not \
                 available per engine on GPUs in MIG mode.",
            ),
            Fact::UtilizationMemory => FieldInfo::new(
                "utilization.memory",
                "Share of the last sampling period in which device memory was read or written.",
            )
            .unit("%"),
            Fact::UtilizationEncoder => FieldInfo::new(
                "utilization.encoder",
                "Share of the last sampling period in which the video encoder was busy.",
            )
            .unit("%"),
            Fact::UtilizationDecoder => FieldInfo::new(
                "utilization.decoder",
                "Share of the last sampling period in which the video decoder was busy.",
            )
            .unit("%"),
            Fact::UtilizationJpeg => FieldInfo::new(
                "utilization.jpeg",
                "Share of the last sampling period in which the JPEG decoder was busy.",
            )
            .unit("%"),
            Fact::UtilizationOfa => FieldInfo::new(
                "utilization.ofa",
                "Share of the last sampling period in which the optical flow accelerator was busy.",
            )
            .unit("%"),
            Fact::EncoderStatsSessionCount => FieldInfo::new(
                "encoder.stats.sessionCount",
                "Number of encoder sessions running now.",
            )
            .heading(
                "encoder.stats",
                "Statistics of the hardware video encoder sessions.",
            ),
            Fact::EncoderStatsAverageFps => FieldInfo::new(
                "encoder.stats.averageFps",
                "Average frames per second over all encoder sessions.",
            ),
            Fact::EncoderStatsAverageLatency => FieldInfo::new(
                "encoder.stats.averageLatency",
                "Average time to encode a frame over all sessions, in microseconds.",
            ),
            Fact::DramEncryptionModeCurrent => FieldInfo::new(
                "dramEncryption.mode.current",
                "Whether device memory is encrypted now.",
            )
            .heading(
                "dramEncryption.mode",
                "Encryption of device memory.",
            ),
            Fact::DramEncryptionModePending => FieldInfo::new(
                "dramEncryption.mode.pending",
                "Whether device memory will be encrypted after the next reboot.",
            ),
            Fact::EccModeCurrent => FieldInfo::new(
                "ecc.mode.current",
                "Whether ECC protection is on now.",
            )
            .heading(
                "ecc.mode",
                "Error-correcting code protection of the GPU's memories.",
            ),
            Fact::EccModePending => FieldInfo::new(
                "ecc.mode.pending",
                "Whether ECC protection will be on after the next reboot.",
            ),
            Fact::EccErrorsCorrectedVolatileDeviceMemory => FieldInfo::new(
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
            Fact::EccErrorsCorrectedVolatileDram => FieldInfo::new(
                "ecc.errors.corrected.volatile.dram",
                "Errors corrected in the DRAM (same counter as device_memory) since the driver \
                 loaded.",
            )
            .counter(),
            Fact::EccErrorsCorrectedVolatileRegisterFile => FieldInfo::new(
                "ecc.errors.corrected.volatile.register_file",
                "Errors corrected in the register file since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsCorrectedVolatileL1Cache => FieldInfo::new(
                "ecc.errors.corrected.volatile.l1_cache",
                "Errors corrected in the L1 caches since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsCorrectedVolatileL2Cache => FieldInfo::new(
                "ecc.errors.corrected.volatile.l2_cache",
                "Errors corrected in the L2 cache since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsCorrectedVolatileTextureMemory => FieldInfo::new(
                "ecc.errors.corrected.volatile.texture_memory",
                "Errors corrected in texture memory since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsCorrectedVolatileCbu => FieldInfo::new(
                "ecc.errors.corrected.volatile.cbu",
                "Errors corrected in the CBU since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsCorrectedVolatileSram => FieldInfo::new(
                "ecc.errors.corrected.volatile.sram",
                "Errors corrected in on-chip SRAM since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsCorrectedVolatileTotal => FieldInfo::new(
                "ecc.errors.corrected.volatile.total",
                "All errors corrected since the driver loaded, over every memory.",
            )
            .counter(),
            Fact::EccErrorsCorrectedAggregateDeviceMemory => FieldInfo::new(
                "ecc.errors.corrected.aggregate.device_memory",
                "Errors corrected in the frame buffer memory over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsCorrectedAggregateDram => FieldInfo::new(
                "ecc.errors.corrected.aggregate.dram",
                "Errors corrected in the DRAM (same counter as device_memory) over the life of the \
                 board.",
            )
            .counter(),
            Fact::EccErrorsCorrectedAggregateRegisterFile => FieldInfo::new(
                "ecc.errors.corrected.aggregate.register_file",
                "Errors corrected in the register file over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsCorrectedAggregateL1Cache => FieldInfo::new(
                "ecc.errors.corrected.aggregate.l1_cache",
                "Errors corrected in the L1 caches over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsCorrectedAggregateL2Cache => FieldInfo::new(
                "ecc.errors.corrected.aggregate.l2_cache",
                "Errors corrected in the L2 cache over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsCorrectedAggregateTextureMemory => FieldInfo::new(
                "ecc.errors.corrected.aggregate.texture_memory",
                "Errors corrected in texture memory over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsCorrectedAggregateCbu => FieldInfo::new(
                "ecc.errors.corrected.aggregate.cbu",
                "Errors corrected in the CBU over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsCorrectedAggregateSram => FieldInfo::new(
                "ecc.errors.corrected.aggregate.sram",
                "Errors corrected in on-chip SRAM over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsCorrectedAggregateTotal => FieldInfo::new(
                "ecc.errors.corrected.aggregate.total",
                "All errors corrected over the life of the board, over every memory.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedVolatileDeviceMemory => FieldInfo::new(
                "ecc.errors.uncorrected.volatile.device_memory",
                "Errors uncorrected in the frame buffer memory since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedVolatileDram => FieldInfo::new(
                "ecc.errors.uncorrected.volatile.dram",
                "Errors uncorrected in the DRAM (same counter as device_memory) since the driver \
                 loaded.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedVolatileRegisterFile => FieldInfo::new(
                "ecc.errors.uncorrected.volatile.register_file",
                "Errors uncorrected in the register file since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedVolatileL1Cache => FieldInfo::new(
                "ecc.errors.uncorrected.volatile.l1_cache",
                "Errors uncorrected in the L1 caches since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedVolatileL2Cache => FieldInfo::new(
                "ecc.errors.uncorrected.volatile.l2_cache",
                "Errors uncorrected in the L2 cache since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedVolatileTextureMemory => FieldInfo::new(
                "ecc.errors.uncorrected.volatile.texture_memory",
                "Errors uncorrected in texture memory since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedVolatileCbu => FieldInfo::new(
                "ecc.errors.uncorrected.volatile.cbu",
                "Errors uncorrected in the CBU since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedVolatileSram => FieldInfo::new(
                "ecc.errors.uncorrected.volatile.sram",
                "Errors uncorrected in on-chip SRAM since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedVolatileTotal => FieldInfo::new(
                "ecc.errors.uncorrected.volatile.total",
                "All errors uncorrected since the driver loaded, over every memory.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateDeviceMemory => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.device_memory",
                "Errors uncorrected in the frame buffer memory over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateDram => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.dram",
                "Errors uncorrected in the DRAM (same counter as device_memory) over the life of the \
                 board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateRegisterFile => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.register_file",
                "Errors uncorrected in the register file over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateL1Cache => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.l1_cache",
                "Errors uncorrected in the L1 caches over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateL2Cache => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.l2_cache",
                "Errors uncorrected in the L2 cache over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateTextureMemory => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.texture_memory",
                "Errors uncorrected in texture memory over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateCbu => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.cbu",
                "Errors uncorrected in the CBU over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateSram => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.sram",
                "Errors uncorrected in on-chip SRAM over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateTotal => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.total",
                "All errors uncorrected over the life of the board, over every memory.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedVolatileSramParity => FieldInfo::new(
                "ecc.errors.uncorrected.volatile.sram.parity",
                "Uncorrected SRAM parity errors since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedVolatileSramSecded => FieldInfo::new(
                "ecc.errors.uncorrected.volatile.sram.secded",
                "Uncorrected SRAM SEC-DED errors since the driver loaded.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateSramParity => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.sram.parity",
                "Uncorrected SRAM parity errors over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateSramSecded => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.sram.secded",
                "Uncorrected SRAM SEC-DED errors over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateSramThresholdExceeded => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.sram.thresholdExceeded",
                "Yes when uncorrected SRAM errors have passed the threshold that calls for action.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateSramL2 => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.sram.l2",
                "Uncorrected SRAM errors in the L2 cache over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateSramSm => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.sram.sm",
                "Uncorrected SRAM errors in the streaming multiprocessors over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateSramMcu => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.sram.mcu",
                "Uncorrected SRAM errors in the microcontrollers over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateSramPcie => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.sram.pcie",
                "Uncorrected SRAM errors in the PCIe interface over the life of the board.",
            )
            .counter(),
            Fact::EccErrorsUncorrectedAggregateSramOther => FieldInfo::new(
                "ecc.errors.uncorrected.aggregate.sram.other",
                "Uncorrected SRAM errors in other units over the life of the board.",
            )
            .counter(),
            Fact::RetiredPagesSingleBitEccCount => FieldInfo::new(
                "retired_pages.single_bit_ecc.count",
                "Pages retired after repeated single-bit ECC errors.",
            )
            .aliases(&["retired_pages.sbe"])
            .heading(
                "retired_pages",
                "Frame buffer pages taken out of use after ECC errors (GPUs before Ampere).",
            )
            .counter(),
            Fact::RetiredPagesDoubleBitCount => FieldInfo::new(
                "retired_pages.double_bit.count",
                "Pages retired after a double-bit ECC error.",
            )
            .aliases(&["retired_pages.dbe"])
            .counter(),
            Fact::RetiredPagesPending => FieldInfo::new(
                "retired_pages.pending",
                "Yes when a page is waiting to be retired at the next driver load.",
            ),
            Fact::RemappedRowsCorrectable => FieldInfo::new(
                "remapped_rows.correctable",
                "Rows remapped after correctable errors.",
            )
            .aliases(&["remapped_rows.sbe"])
            .counter()
            .heading(
                "remapped_rows",
                "Memory rows replaced by spare rows after ECC errors (Ampere and newer).",
            ),
            Fact::RemappedRowsCorrectableInactive => FieldInfo::new(
                "remapped_rows.correctable_inactive",
                "Rows remapped after correctable errors that are not in use yet (drivers 595 and \
                 later; [N/A] before).",
            ),
            Fact::RemappedRowsUncorrectable => FieldInfo::new(
                "remapped_rows.uncorrectable",
                "Rows remapped after uncorrectable errors.",
            )
            .aliases(&["remapped_rows.dbe"])
            .counter(),
            Fact::RemappedRowsUncorrectableInactive => FieldInfo::new(
                "remapped_rows.uncorrectable_inactive",
                "Rows remapped after uncorrectable errors that are not in use yet (drivers 595 and \
                 later; [N/A] before).",
            ),
            Fact::RemappedRowsPending => FieldInfo::new(
                "remapped_rows.pending",
                "Yes when a remapping waits for the next GPU reset.",
            ),
            Fact::RemappedRowsFailure => FieldInfo::new(
                "remapped_rows.failure",
                "Yes when a row could not be remapped.",
            ),
            Fact::RemappedRowsHistogramMax => FieldInfo::new(
                "remapped_rows.histogram.max",
                "Number of memory banks with all spare rows left.",
            )
            .heading(
                "remapped_rows.histogram",
                "How many memory banks have how many spare rows left.",
            ),
            Fact::RemappedRowsHistogramHigh => FieldInfo::new(
                "remapped_rows.histogram.high",
                "Number of memory banks with most spare rows left.",
            ),
            Fact::RemappedRowsHistogramPartial => FieldInfo::new(
                "remapped_rows.histogram.partial",
                "Number of memory banks with some spare rows left.",
            ),
            Fact::RemappedRowsHistogramLow => FieldInfo::new(
                "remapped_rows.histogram.low",
                "Number of memory banks with few spare rows left.",
            ),
            Fact::RemappedRowsHistogramNone => FieldInfo::new(
                "remapped_rows.histogram.none",
                "Number of memory banks with no spare rows left.",
            ),
            Fact::TemperatureGpu => FieldInfo::new(
                "temperature.gpu",
                "Temperature of the GPU die, in degrees Celsius.",
            )
            .celsius(),
            Fact::TemperatureGpuTlimit => FieldInfo::new(
                "temperature.gpu.tlimit",
                "How many degrees Celsius the GPU is below its slowdown temperature (T.Limit).",
            )
            .celsius(),
            Fact::TemperatureMemory => FieldInfo::new(
                "temperature.memory",
                "Temperature of the HBM memory, in degrees Celsius. Boards without a sensor print \
                 N/A.",
            )
            .celsius(),
            Fact::PowerManagement => FieldInfo::new(
                "power.management",
                "Whether power management is on (Enabled/Disabled). Drivers from 590 on report this \
                 field as deprecated.",
            ),
            Fact::PowerDraw => FieldInfo::new(
                "power.draw",
                "Power the whole board draws, in watts (a one-second average on Ampere and newer, an \
                 instant reading before).",
            )
            .unit("W"),
            Fact::PowerDrawAverage => FieldInfo::new(
                "power.draw.average",
                "Power the whole board drew, averaged over the last second, in watts.",
            )
            .aliases(&["gpu.power.draw.average"])
            .unit("W"),
            Fact::PowerDrawInstant => FieldInfo::new(
                "power.draw.instant",
                "Power the whole board draws at this instant, in watts.",
            )
            .aliases(&["gpu.power.draw.instant"])
            .unit("W"),
            Fact::PowerLimit => FieldInfo::new(
                "power.limit",
                "Power limit set by software, in watts.",
            )
            .aliases(&["gpu.power.requested_limit"])
            .unit("W"),
            Fact::EnforcedPowerLimit => FieldInfo::new(
                "enforced.power.limit",
                "Power limit the GPU actually enforces, in watts: the lowest of all limits in effect.",
            )
            .aliases(&["gpu.power.current_limit"])
            .unit("W"),
            Fact::PowerDefaultLimit => FieldInfo::new(
                "power.default_limit",
                "Power limit the GPU returns to when the driver reloads, in watts.",
            )
            .aliases(&["gpu.power.default_limit"])
            .unit("W"),
            Fact::PowerMinLimit => FieldInfo::new(
                "power.min_limit",
                "Lowest power limit that can be set, in watts.",
            )
            .aliases(&["gpu.power.min_limit"])
            .unit("W"),
            Fact::PowerMaxLimit => FieldInfo::new(
                "power.max_limit",
                "Highest power limit that can be set, in watts.",
            )
            .aliases(&["gpu.power.max_limit"])
            .unit("W"),
            Fact::ModulePowerDrawAverage => FieldInfo::new(
                "module.power.draw.average",
                "Power the whole module drew, averaged over the last second, in watts.",
            )
            .unit("W"),
            Fact::ModulePowerDrawInstant => FieldInfo::new(
                "module.power.draw.instant",
                "Power the whole module draws at this instant, in watts.",
            )
            .unit("W"),
            Fact::ModulePowerLimit => FieldInfo::new(
                "module.power.limit",
                "Power limit of the whole module set by software, in watts.",
            )
            .aliases(&["module.power.requested_limit"])
            .unit("W"),
            Fact::ModuleEnforcedPowerLimit => FieldInfo::new(
                "module.enforced.power.limit",
                "Power limit the module actually enforces, in watts.",
            )
            .aliases(&["module.power.current_limit"])
            .unit("W"),
            Fact::ModulePowerDefaultLimit => FieldInfo::new(
                "module.power.default_limit",
                "Default power limit of the whole module, in watts.",
            )
            .unit("W"),
            Fact::ModulePowerMinLimit => FieldInfo::new(
                "module.power.min_limit",
                "Lowest power limit that can be set for the module, in watts.",
            )
            .unit("W"),
            Fact::ModulePowerMaxLimit => FieldInfo::new(
                "module.power.max_limit",
                "Highest power limit that can be set for the module, in watts.",
            )
            .unit("W"),
            Fact::GpuBaseCurrent => FieldInfo::new(
                "gpu.base.current",
                "Base GPU power currently enforced, in watts. (nvq has no NVML source for this value \
                 yet and prints [N/A].)",
            )
            .unit("W"),
            Fact::GpuBaseRequested => FieldInfo::new(
                "gpu.base.requested",
                "Base GPU power requested by software, in watts. (nvq has no NVML source for this \
                 value yet and prints [N/A].)",
            )
            .unit("W"),
            Fact::GpuBaseDefault => FieldInfo::new(
                "gpu.base.default",
                "Default base GPU power, in watts. (nvq has no NVML source for this value yet and \
                 prints [N/A].)",
            )
            .unit("W"),
            Fact::GpuBaseMin => FieldInfo::new(
                "gpu.base.min",
                "Lowest base GPU power that can be set, in watts. (nvq has no NVML source for this \
                 value yet and prints [N/A].)",
            )
            .unit("W"),
            Fact::GpuBaseMax => FieldInfo::new(
                "gpu.base.max",
                "Highest base GPU power that can be set, in watts. (nvq has no NVML source for this \
                 value yet and prints [N/A].)",
            )
            .unit("W"),
            Fact::PowerSmoothingTmpFloor => FieldInfo::new(
                "power_smoothing.tmp_floor",
                "Power floor (TMP floor) applied by power smoothing now, in watts.",
            )
            .unit("W")
            .heading(
                "power_smoothing",
                "Power smoothing settings and state (GPUs that support it).",
            ),
            Fact::PowerSmoothingTmpCeil => FieldInfo::new(
                "power_smoothing.tmp_ceil",
                "Power ceiling (TMP ceiling) applied by power smoothing now, in watts.",
            )
            .unit("W"),
            Fact::PowerSmoothingHwLifetimeRemainingPercent => FieldInfo::new(
                "power_smoothing.hw_lifetime_remaining_percent",
                "Remaining lifetime of the power smoothing circuitry, in percent.",
            )
            .unit("%"),
            Fact::PowerSmoothingEnabled => FieldInfo::new(
                "power_smoothing.enabled",
                "Yes when power smoothing is switched on.",
            ),
            Fact::PowerSmoothingDelayedPowerSmoothingSupported => FieldInfo::new(
                "power_smoothing.delayed_power_smoothing_supported",
                "Yes when the GPU supports delayed power smoothing. (nvq has no NVML source for this \
                 value yet and prints [N/A].)",
            ),
            Fact::PowerSmoothingSocPowerSmoothingEnabled => FieldInfo::new(
                "power_smoothing.soc_power_smoothing_enabled",
                "Whether state-of-charge power smoothing is switched on. (nvq has no NVML source for \
                 this value yet and prints [N/A].)",
            ),
            Fact::PowerSmoothingPrivLevel => FieldInfo::new(
                "power_smoothing.priv_level",
                "Privilege level of the power smoothing settings.",
            ),
            Fact::PowerSmoothingImmRampDown => FieldInfo::new(
                "power_smoothing.imm_ramp_down",
                "Whether power smoothing may ramp power down at once.",
            ),
            Fact::PowerSmoothingMaxPercentTmpFloor => FieldInfo::new(
                "power_smoothing.max_percent_tmp_floor",
                "Highest TMP floor percentage that may be set.",
            )
            .unit("%"),
            Fact::PowerSmoothingMinPercentTmpFloor => FieldInfo::new(
                "power_smoothing.min_percent_tmp_floor",
                "Lowest TMP floor percentage that may be set.",
            )
            .unit("%"),
            Fact::PowerSmoothingPrimaryPowerFloor => FieldInfo::new(
                "power_smoothing.primary_power_floor",
                "Primary power floor of power smoothing now, in watts. (nvq has no NVML source for \
                 this value yet and prints [N/A].)",
            )
            .unit("W"),
            Fact::PowerSmoothingSecondaryPowerFloor => FieldInfo::new(
                "power_smoothing.secondary_power_floor",
                "Secondary power floor of power smoothing now, in watts. (nvq has no NVML source for \
                 this value yet and prints [N/A].)",
            )
            .unit("W"),
            Fact::PowerSmoothingMinPrimaryFloorActivationOffset => FieldInfo::new(
                "power_smoothing.min_primary_floor_activation_offset",
                "Smallest primary floor activation offset, in watts. (nvq has no NVML source for \
                 this value yet and prints [N/A].)",
            )
            .unit("W"),
            Fact::PowerSmoothingMinPrimaryFloorActivationPoint => FieldInfo::new(
                "power_smoothing.min_primary_floor_activation_point",
                "Smallest primary floor activation point, in watts. (nvq has no NVML source for this \
                 value yet and prints [N/A].)",
            )
            .unit("W"),
            Fact::PowerSmoothingWindowMultiplier => FieldInfo::new(
                "power_smoothing.window_multiplier",
                "Window multiplier of power smoothing, in milliseconds. (nvq has no NVML source for \
                 this value yet and prints [N/A].)",
            )
            .unit("ms"),
            Fact::PowerSmoothingNumPresetProfiles => FieldInfo::new(
                "power_smoothing.num_preset_profiles",
                "Number of power smoothing preset profiles the GPU offers.",
            ),
            Fact::PowerSmoothingCurrProfilePercentTmpFloor => FieldInfo::new(
                "power_smoothing.curr_profile.percent_tmp_floor",
                "TMP floor percentage of the active profile.",
            )
            .unit("%"),
            Fact::PowerSmoothingCurrProfileRampUpRate => FieldInfo::new(
                "power_smoothing.curr_profile.ramp_up_rate",
                "Ramp-up rate of the active profile, in watts per second.",
            )
            .unit("W/s"),
            Fact::PowerSmoothingCurrProfileRampDownRate => FieldInfo::new(
                "power_smoothing.curr_profile.ramp_down_rate",
                "Ramp-down rate of the active profile, in watts per second.",
            )
            .unit("W/s"),
            Fact::PowerSmoothingCurrProfileRampDownHysteresis => FieldInfo::new(
                "power_smoothing.curr_profile.ramp_down_hysteresis",
                "Ramp-down hysteresis of the active profile, in milliseconds.",
            )
            .unit("ms"),
            Fact::PowerSmoothingCurrProfileSecondaryPowerFloor => FieldInfo::new(
                "power_smoothing.curr_profile.secondary_power_floor",
                "Secondary power floor of the active profile, in watts. (nvq has no NVML source for \
                 this value yet and prints [N/A].)",
            )
            .unit("W"),
            Fact::PowerSmoothingCurrProfilePrimaryFloorActWindowMultiplier => FieldInfo::new(
                "power_smoothing.curr_profile.primary_floor_act_window_multiplier",
                "Primary floor activation window multiplier of the active profile. (nvq has no NVML \
                 source for this value yet and prints [N/A].)",
            ),
            Fact::PowerSmoothingCurrProfilePrimaryFloorTarWindowMultiplier => FieldInfo::new(
                "power_smoothing.curr_profile.primary_floor_tar_window_multiplier",
                "Primary floor target window multiplier of the active profile. (nvq has no NVML \
                 source for this value yet and prints [N/A].)",
            ),
            Fact::PowerSmoothingCurrProfilePrimaryFloorActOffset => FieldInfo::new(
                "power_smoothing.curr_profile.primary_floor_act_offset",
                "Primary floor activation offset of the active profile, in watts. (nvq has no NVML \
                 source for this value yet and prints [N/A].)",
            )
            .unit("W"),
            Fact::PowerSmoothingActiveProfile => FieldInfo::new(
                "power_smoothing.active_profile",
                "Number of the active power smoothing preset profile.",
            ),
            Fact::PowerSmoothingAdminOverridePercentTmpFloor => FieldInfo::new(
                "power_smoothing.admin_override.percent_tmp_floor",
                "TMP floor percentage forced by the administrator, if any.",
            )
            .unit("%"),
            Fact::PowerSmoothingAdminOverrideRampUpRate => FieldInfo::new(
                "power_smoothing.admin_override.ramp_up_rate",
                "Ramp-up rate forced by the administrator, in watts per second, if any.",
            )
            .unit("W/s"),
            Fact::PowerSmoothingAdminOverrideRampDownRate => FieldInfo::new(
                "power_smoothing.admin_override.ramp_down_rate",
                "Ramp-down rate forced by the administrator, in watts per second, if any.",
            )
            .unit("W/s"),
            Fact::PowerSmoothingAdminOverrideRampDownHysteresis => FieldInfo::new(
                "power_smoothing.admin_override.ramp_down_hysteresis",
                "Ramp-down hysteresis forced by the administrator, in milliseconds, if any.",
            )
            .unit("ms"),
            Fact::PowerSmoothingAdminOverrideSecondaryPowerFloor => FieldInfo::new(
                "power_smoothing.admin_override.secondary_power_floor",
                "Secondary power floor forced by the administrator, in watts, if any. (nvq has no \
                 NVML source for this value yet and prints [N/A].)",
            )
            .unit("W"),
            Fact::PowerSmoothingAdminOverridePrimaryFloorActWindowMultiplier => FieldInfo::new(
                "power_smoothing.admin_override.primary_floor_act_window_multiplier",
                "Primary floor activation window multiplier forced by the administrator, if any. \
                 (nvq has no NVML source for this value yet and prints [N/A].)",
            ),
            Fact::PowerSmoothingAdminOverridePrimaryFloorTarWindowMultiplier => FieldInfo::new(
                "power_smoothing.admin_override.primary_floor_tar_window_multiplier",
                "Primary floor target window multiplier forced by the administrator, if any. (nvq \
                 has no NVML source for this value yet and prints [N/A].)",
            ),
            Fact::PowerSmoothingAdminOverridePrimaryFloorActOffset => FieldInfo::new(
                "power_smoothing.admin_override.primary_floor_act_offset",
                "Primary floor activation offset forced by the administrator, in watts, if any. (nvq \
                 has no NVML source for this value yet and prints [N/A].)",
            )
            .unit("W"),
            Fact::EdppMultiplier => FieldInfo::new(
                "edpp_multiplier",
                "EDPp multiplier of the GPU, in percent.",
            )
            .unit("%"),
            Fact::ClocksCurrentGraphics => FieldInfo::new(
                "clocks.current.graphics",
                "Current graphics (shader) clock frequency.",
            )
            .aliases(&["clocks.gr"])
            .unit("MHz"),
            Fact::ClocksCurrentSm => FieldInfo::new(
                "clocks.current.sm",
                "Current streaming multiprocessor clock frequency.",
            )
            .aliases(&["clocks.sm"])
            .unit("MHz"),
            Fact::ClocksCurrentMemory => FieldInfo::new(
                "clocks.current.memory",
                "Current memory clock frequency.",
            )
            .aliases(&["clocks.mem"])
            .unit("MHz"),
            Fact::ClocksCurrentVideo => FieldInfo::new(
                "clocks.current.video",
                "Current video encoder/decoder clock frequency.",
            )
            .aliases(&["clocks.video"])
            .unit("MHz"),
            Fact::ClocksApplicationsGraphics => FieldInfo::new(
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
            Fact::ClocksApplicationsMemory => FieldInfo::new(
                "clocks.applications.memory",
                "Memory clock frequency applications are started with. Drivers from 590 on report \
                 this field as deprecated.",
            )
            .aliases(&["clocks.applications.mem"])
            .unit("MHz"),
            Fact::ClocksDefaultApplicationsGraphics => FieldInfo::new(
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
            Fact::ClocksDefaultApplicationsMemory => FieldInfo::new(
                "clocks.default_applications.memory",
                "Default memory clock frequency applications are started with. Drivers from 590 on \
                 report this field as deprecated.",
            )
            .aliases(&["clocks.default_applications.mem"])
            .unit("MHz"),
            Fact::ClocksMaxGraphics => FieldInfo::new(
                "clocks.max.graphics",
                "Highest graphics (shader) clock frequency.",
            )
            .aliases(&["clocks.max.gr"])
            .unit("MHz")
            .heading(
                "clocks.max",
                "Highest clocks the GPU may run at.",
            ),
            Fact::ClocksMaxSm => FieldInfo::new(
                "clocks.max.sm",
                "Highest streaming multiprocessor clock frequency.",
            )
            .unit("MHz"),
            Fact::ClocksMaxMemory => FieldInfo::new(
                "clocks.max.memory",
                "Highest memory clock frequency.",
            )
            .aliases(&["clocks.max.mem"])
            .unit("MHz"),
            Fact::MigModeCurrent => FieldInfo::new(
                "mig.mode.current",
                "Whether MIG mode is on now.",
            )
            .heading(
                "mig.mode",
                "Multi-Instance GPU mode: whether the GPU is split into isolated instances.",
            ),
            Fact::MigModePending => FieldInfo::new(
                "mig.mode.pending",
                "Whether MIG mode will be on after the next GPU reset.",
            ),
            Fact::GspModeCurrent => FieldInfo::new(
                "gsp.mode.current",
                "Whether the GSP firmware runs now.",
            )
            .heading(
                "gsp.mode",
                "Whether the GPU System Processor runs the driver firmware.",
            ),
            Fact::GspModeDefault => FieldInfo::new(
                "gsp.mode.default",
                "Whether the GSP firmware runs by default on this GPU.",
            ),
            Fact::C2cMode => FieldInfo::new(
                "c2c.mode",
                "Whether the GPU is connected to the CPU through a chip-to-chip (C2C) link \
                 (Enabled/Disabled).",
            ),
            Fact::ProtectedMemoryTotal => FieldInfo::new(
                "protected_memory.total",
                "Total memory set aside for confidential computing.",
            )
            .unit("MiB")
            .heading(
                "protected_memory",
                "Memory reserved for confidential computing.",
            ),
            Fact::ProtectedMemoryUsed => FieldInfo::new(
                "protected_memory.used",
                "Confidential computing memory in use.",
            )
            .unit("MiB"),
            Fact::ProtectedMemoryFree => FieldInfo::new(
                "protected_memory.free",
                "Confidential computing memory still free.",
            )
            .unit("MiB"),
            Fact::FabricState => FieldInfo::new(
                "fabric.state",
                "State of the GPU's registration with the NVLink fabric: Not Started, In Progress or \
                 Completed. N/A without a fabric.",
            ),
            Fact::FabricStatus => FieldInfo::new(
                "fabric.status",
                "Result of the fabric registration once it has completed. N/A without a fabric.",
            ),
            Fact::FabricCliqueId => FieldInfo::new(
                "fabric.cliqueId",
                "Number of the fabric clique the GPU belongs to. N/A without a fabric.",
            ),
            Fact::FabricClusterUuid => FieldInfo::new(
                "fabric.clusterUuid",
                "UUID of the fabric cluster the GPU belongs to. N/A without a fabric.",
            ),
            Fact::FabricHealthSummary => FieldInfo::new(
                "fabric.health.summary",
                "Overall health of the GPU's fabric connection. (nvq prints N/A: the value format is \
                 not known yet.)",
            ),
            Fact::FabricHealthBandwidth => FieldInfo::new(
                "fabric.health.bandwidth",
                "Whether fabric bandwidth is degraded. (nvq prints N/A: the value format is not \
                 known yet.)",
            ),
            Fact::FabricHealthRouteRecoveryInProgress => FieldInfo::new(
                "fabric.health.route_recovery_in_progress",
                "Whether a fabric route is being recovered. (nvq prints N/A: the value format is not \
                 known yet.)",
            ),
            Fact::FabricHealthRouteUnhealthy => FieldInfo::new(
                "fabric.health.route_unhealthy",
                "Whether a fabric route is unhealthy. (nvq prints N/A: the value format is not known \
                 yet.)",
            ),
            Fact::FabricHealthAccessTimeoutRecovery => FieldInfo::new(
                "fabric.health.access_timeout_recovery",
                "Whether the fabric is recovering from an access timeout. (nvq prints N/A: the value \
                 format is not known yet.)",
            ),
            Fact::FabricHealthIncorrectConfiguration => FieldInfo::new(
                "fabric.health.incorrect_configuration",
                "Whether the fabric is configured incorrectly. (nvq prints N/A: the value format is \
                 not known yet.)",
            ),
            Fact::FabricHealthPartitionAssigned => FieldInfo::new(
                "fabric.health.partition_assigned",
                "Whether a fabric partition is assigned to the GPU. (nvq prints N/A: the value \
                 format is not known yet.)",
            ),
            Fact::PlatformChassisSerialNumber => FieldInfo::new(
                "platform.chassis_serial_number",
                "Serial number of the chassis that holds the GPU.",
            )
            .heading(
                "platform",
                "Where the GPU sits in its chassis, on systems that report it.",
            ),
            Fact::PlatformSlotNumber => FieldInfo::new(
                "platform.slot_number",
                "Slot of the chassis that holds the GPU (switch slots included).",
            ),
            Fact::PlatformTrayIndex => FieldInfo::new(
                "platform.tray_index",
                "Index of the compute tray that holds the GPU (switch trays not counted).",
            ),
            Fact::PlatformHostId => FieldInfo::new(
                "platform.host_id",
                "Index of the node inside its slot.",
            ),
            Fact::PlatformPeerType => FieldInfo::new(
                "platform.peer_type",
                "How the GPU's NVLink peers are connected, as the platform reports it.",
            ),
            Fact::PlatformModuleId => FieldInfo::new(
                "platform.module_id",
                "Number of the GPU inside its node.",
            ),
            Fact::PlatformGpuFabricGuid => FieldInfo::new(
                "platform.gpu_fabric_guid",
                "Fabric GUID of the GPU, in hexadecimal.",
            ),
            Fact::Hostname => FieldInfo::new(
                "hostname",
                "Host name the GPU is associated with.",
            ),
            Fact::BbxTimeRun => FieldInfo::new(
                "bbx.time_run",
                "Seconds the GPU has been running in total since it was first initialised. (nvq has \
                 no NVML source for this value yet and prints [N/A].)",
            )
            .unit("seconds"),
            Fact::Bar1MemoryTotal => FieldInfo::new("bar1_memory.total", "Size of the BAR1 aperture through which the CPU and peers map GPU memory.")
                .unit("MiB")
                .internal(),
            Fact::Bar1MemoryUsed => FieldInfo::new("bar1_memory.used", "BAR1 aperture in use.")
                .unit("MiB")
                .internal(),
            Fact::Bar1MemoryFree => FieldInfo::new("bar1_memory.free", "BAR1 aperture not in use.")
                .unit("MiB")
                .internal(),
            Fact::PcieReplayCounter => FieldInfo::new("pcie.replay_counter", "PCIe packets the GPU had to send again since the driver loaded.").counter()
                .internal(),
            Fact::PcieReplayRolloverCounter => FieldInfo::new("pcie.replay_rollover_counter", "How many times the PCIe replay counter wrapped around.").counter()
                .internal(),
            Fact::PcieTxThroughput => FieldInfo::new("pcie.tx_throughput", "PCIe data sent by the GPU over the driver's last 20 ms.")
                .unit("KB/s")
                .internal(),
            Fact::PcieRxThroughput => FieldInfo::new("pcie.rx_throughput", "PCIe data received by the GPU over the driver's last 20 ms.")
                .unit("KB/s")
                .internal(),
            Fact::MemoryPowerAverage => FieldInfo::new("memory_power.average", "Power drawn by the memory, averaged over the last second.")
                .unit("W")
                .internal(),
            Fact::MemoryPowerInstant => FieldInfo::new("memory_power.instant", "Power drawn by the memory now.")
                .unit("W")
                .internal(),
            Fact::MinorNumber => FieldInfo::new("minor_number", "The GPU's device minor number: its node is /dev/nvidia<minor>.")
                .internal(),
            Fact::Brand => FieldInfo::new("brand", "The product brand (GeForce, Tesla, NVIDIA RTX, ...).").internal(),
            Fact::Architecture => FieldInfo::new("architecture", "The GPU architecture (Ampere, Hopper, ...).").internal(),
            Fact::MultiGpuBoard => FieldInfo::new("multigpu_board", "Whether the GPU sits on a board with several GPUs, Yes/No.").internal(),
            Fact::BoardId => FieldInfo::new("board_id", "The board's id, in hex: GPUs of one board share it.").internal(),
            Fact::BoardPartNumber => FieldInfo::new("board_part_number", "The board's part number.").internal(),
            Fact::ModuleId => FieldInfo::new("module_id", "The GPU's module id on a multi-GPU baseboard.").internal(),
            Fact::Pdi => FieldInfo::new("pdi", "The GPU's PDI, a 64-bit identifier, in hexadecimal (-q's GPU PDI).").internal(),
            Fact::ChannelRepairPending => FieldInfo::new("repair_status.channel_repair_pending", "Whether a memory channel repair is pending, Yes/No.").internal(),
            Fact::TpcRepairPending => FieldInfo::new("repair_status.tpc_repair_pending", "Whether a TPC repair is pending, Yes/No.").internal(),
            Fact::UnrepairableMemory => FieldInfo::new("unrepairable_memory", "Whether the GPU has memory it cannot repair, Yes/No.").internal(),
            Fact::Egm => FieldInfo::new("capabilities.egm", "Extended GPU memory: enabled or disabled.").internal(),
            Fact::BbxFlushTimestamp => FieldInfo::new("inforom.bbx_flush.latest_timestamp", "When the InfoROM's BBX object was last flushed, in local time.").internal(),
            Fact::BbxFlushDuration => FieldInfo::new("inforom.bbx_flush.latest_duration", "How long the last BBX flush took, in microseconds.").internal(),
            Fact::VirtualizationMode => FieldInfo::new("virtualization_mode", "The GPU's virtualization mode (None, Pass-Through, VGPU, Host VGPU, Host VSGA).").internal(),
            Fact::HostVgpuMode => FieldInfo::new("host_vgpu_mode", "The host's vGPU mode: Non SR-IOV or SR-IOV.").internal(),
            Fact::VgpuHeterogeneousMode => FieldInfo::new("vgpu_heterogeneous_mode", "Whether vGPUs of different types may share the GPU: Enabled/Disabled.").internal(),
            Fact::BridgeChipType => FieldInfo::new("bridge_chip.type", "The type of the first bridge chip above the GPU (PLX, BR04).").internal(),
            Fact::BridgeChipFirmware => FieldInfo::new("bridge_chip.firmware", "The firmware version of the first bridge chip above the GPU, in hexadecimal.").internal(),
            Fact::GspFirmwareVersion => FieldInfo::new("gsp_firmware_version", "The version of the GSP firmware.").internal(),
            Fact::PcieAtomicCapsInbound => FieldInfo::new("pcie.atomic_caps_inbound", "The PCIe atomic operations the GPU accepts.").internal(),
            Fact::PcieAtomicCapsOutbound => FieldInfo::new("pcie.atomic_caps_outbound", "The PCIe atomic operations the GPU issues.").internal(),
            Fact::FbcSessionCount => FieldInfo::new("fbc_stats.session_count", "Active frame buffer capture sessions.").internal(),
            Fact::FbcAverageFps => FieldInfo::new("fbc_stats.average_fps", "The frame buffer capture sessions' average frames per second.").internal(),
            Fact::FbcAverageLatency => FieldInfo::new("fbc_stats.average_latency", "The frame buffer capture sessions' average latency, in microseconds.").internal(),
            Fact::TemperatureShutdown => FieldInfo::new("temperature.shutdown_threshold", "The temperature at which the GPU shuts down, in degrees C.").internal(),
            Fact::TemperatureSlowdown => FieldInfo::new("temperature.slowdown_threshold", "The temperature at which the GPU slows down, in degrees C.").internal(),
            Fact::TemperatureGpuMax => FieldInfo::new("temperature.gpu_max_threshold", "The GPU's highest operating temperature, in degrees C.").internal(),
            Fact::TemperatureMemoryMax => FieldInfo::new("temperature.memory_max_threshold", "The memory's highest operating temperature, in degrees C.").internal(),
            Fact::TemperatureTarget => FieldInfo::new("temperature.target", "The GPU's target temperature, in degrees C.").internal(),
            Fact::TemperatureAcousticMin => FieldInfo::new("temperature.acoustic_min", "The lowest target temperature that may be set, in degrees C.").internal(),
            Fact::TemperatureAcousticMax => FieldInfo::new("temperature.acoustic_max", "The highest target temperature that may be set, in degrees C.").internal(),
            Fact::ClocksMaxVideo => FieldInfo::new("clocks.max.video", "The highest video clock, in MHz.").internal(),
            Fact::ClocksMaxBoostGraphics => FieldInfo::new("clocks.max_boost.graphics", "The highest graphics clock the GPU boosts to, in MHz.").internal(),
            Fact::AutoBoost => FieldInfo::new("clocks.auto_boost", "Whether auto boost is on: On/Off.").internal(),
            Fact::AutoBoostDefault => FieldInfo::new("clocks.auto_boost_default", "Whether auto boost is on by default: On/Off.").internal(),
            Fact::PowerManagementSupport => FieldInfo::new("power.management_support", "Supported where power management is active (the line drivers before 535 print), else N/A.").internal(),
            Fact::PowerSmoothingState => FieldInfo::new("power_smoothing.state", "Whether power smoothing is on: Enabled/Disabled.").internal(),
            Fact::PowerProfilesRequested => FieldInfo::new("power_profiles.requested", "The workload power profiles requested, by NVML's names.").internal(),
            Fact::PowerProfilesEnforced => FieldInfo::new("power_profiles.enforced", "The workload power profiles enforced, by NVML's names.").internal(),
        }
    }
}

/// Every fact's description, indexed by the fact.
static INFO: [FieldInfo; Fact::COUNT] = {
    let mut out = [FieldInfo::new("", ""); Fact::COUNT];
    let mut i = 0;
    while i < Fact::COUNT {
        out[i] = Fact::ALL[i].describe();
        i += 1;
    }
    out
};

// `Fact::ALL` lists every variant once, in declaration order, and the
// internal facts are exactly those after the `--query-gpu` fields.
const _: () = {
    let mut i = 0;
    while i < Fact::COUNT {
        assert!(Fact::ALL[i] as usize == i);
        assert!(Fact::ALL[i].describe().internal == (i >= Fact::FIELDS));
        i += 1;
    }
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for f in Fact::ALL {
            assert_eq!(Fact::by_name(f.name()), Some(f), "{}", f.name());
        }
        assert_eq!(Fact::by_name("memory.used"), Some(Fact::MemoryUsed));
        assert_eq!(Fact::by_name("no.such.fact"), None);
    }
}
