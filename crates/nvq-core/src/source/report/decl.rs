//! The report as data: every section and line of `nvidia-smi -q`, in
//! nvidia-smi's order, each with its text label, its XML element, how its
//! value is read, and the `-d` types that show it.

use super::get::{self as g, none, SampleKind};
use super::{Decl, Read};
use crate::model::report::View;
use crate::model::{Fact, Fact as F, Value};
use crate::source::gpu::GpuCtx;
use nvml_wrapper::enum_wrappers::device::Sampling;
use nvml_wrapper_sys::bindings::{
    nvmlClocksEventReasonDisplayClockSetting, nvmlClocksEventReasonGpuIdle,
};

/// The `-d` types (`--display=`), as nvidia-smi names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    /// `MEMORY`: FB, BAR1 and protected memory usage.
    Memory,
    /// `UTILIZATION`: GPU, memory, encoder, decoder, JPEG and OFA utilization.
    Utilization,
    /// `ECC`: ECC mode and error counts.
    Ecc,
    /// `TEMPERATURE`: current temperatures and their thresholds.
    Temperature,
    /// `POWER`: power draw, limits and their constraints.
    Power,
    /// `CLOCK`: current, application, default and maximum clocks.
    Clock,
    /// `COMPUTE`: compute mode.
    Compute,
    /// `PIDS`: the processes using the GPU.
    Pids,
    /// `PERFORMANCE`: performance state and clock event (throttle) reasons.
    Performance,
    /// `SUPPORTED_CLOCKS`: the supported memory/graphics clock pairs.
    SupportedClocks,
    /// `PAGE_RETIREMENT`: retired pages by cause and pending retirement.
    PageRetirement,
    /// `ACCOUNTING`: accounting mode and its buffer size.
    Accounting,
    /// `ENCODER_STATS`: encoder sessions, average FPS and latency.
    EncoderStats,
    /// `SUPPORTED_GPU_TARGET_TEMP`: the GPU target temperature's allowed range.
    SupportedGpuTargetTemp,
    /// `VOLTAGE`: the graphics voltage.
    Voltage,
    /// `FBC_STATS`: frame buffer capture sessions, average FPS and latency.
    FbcStats,
    /// `ROW_REMAPPER`: remapped rows and the row remapper histogram.
    RowRemapper,
    /// `GSP_FIRMWARE_VERSION`: the GSP firmware version.
    GspFirmwareVersion,
    /// `POWER_SMOOTHING`: power smoothing state and profile settings.
    PowerSmoothing,
    /// `POWER_PROFILES`: the requested and enforced workload power profiles.
    PowerProfiles,
}

/// Each `-d` type and its name on the command line.
pub const DISPLAY_NAMES: &[(Display, &str)] = &[
    (Display::Memory, "MEMORY"),
    (Display::Utilization, "UTILIZATION"),
    (Display::Ecc, "ECC"),
    (Display::Temperature, "TEMPERATURE"),
    (Display::Power, "POWER"),
    (Display::Clock, "CLOCK"),
    (Display::Compute, "COMPUTE"),
    (Display::Pids, "PIDS"),
    (Display::Performance, "PERFORMANCE"),
    (Display::SupportedClocks, "SUPPORTED_CLOCKS"),
    (Display::PageRetirement, "PAGE_RETIREMENT"),
    (Display::Accounting, "ACCOUNTING"),
    (Display::EncoderStats, "ENCODER_STATS"),
    (Display::SupportedGpuTargetTemp, "SUPPORTED_GPU_TARGET_TEMP"),
    (Display::Voltage, "VOLTAGE"),
    (Display::FbcStats, "FBC_STATS"),
    (Display::RowRemapper, "ROW_REMAPPER"),
    (Display::GspFirmwareVersion, "GSP_FIRMWARE_VERSION"),
    (Display::PowerSmoothing, "POWER_SMOOTHING"),
    (Display::PowerProfiles, "POWER_PROFILES"),
];

/// From 610 on nvidia-smi names the driver version "KMD Version" and splits
/// the power limits into ceiling and base power.
pub const KMD_NAMED_FROM: u32 = 610;

/// The fabric health's "Partition Assigned": absent on 590, present on 595.
const PARTITION_FROM: u32 = 595;

/// The remapped rows not in use yet (`nvmlDeviceGetRemappedRows_v2`), each
/// after its count: in the 595 reports and documents, not in the 590 ones.
const INACTIVE_ROWS_FROM: u32 = 595;

/// Lines that drivers from the 580 branch on print and 570 did not (display
/// attached, PDI, repair status, EDPp, two fabric health lines; the event
/// reason counters came in 575), and the two sections they dropped (GPU reset status,
/// voltage). 570 is the newest older driver seen (v12 XML), 590 the oldest
/// newer one; 580 is where the DTD went to v13.
const V13_FROM: u32 = 580;

/// Lines that the 510-516 documents (DTD v11) have and the 418 ones (no DTD)
/// lack: the architecture, MIG mode and devices, the module id, the GSP
/// firmware, the host vGPU mode, reserved memory, the pending page
/// blacklist, remapped rows, the target temperature and its range, the
/// voltage. No 430-505 document was available: they are placed where the
/// DTD got a version (430), which is unverified for each of them.
const V10_FROM: u32 = 430;

/// Of those, the module id, the GSP firmware version, the target
/// temperature and the voltage section are not in the 450.51, 450.57 and
/// 450.102 text reports and are in the 470.129 and 470.256 ones: 470 is
/// where they are placed (455 to 465 unverified), in both views.
const R470: u32 = 470;

/// Of those, the architecture and the reserved memory are not in the 450.66
/// and 470.256 text reports: they come with the v11 documents (510 on), the
/// oldest driver seen with them. (The "Ecc Mode" heading of the 418, 470
/// and 525.105/525.125 reports is "ECC Mode" from 535: `V12_FROM`.)
const V11_FROM: u32 = 510;

/// Lines that the DTD v12 documents (525 on) have and the v11 ones (510-516)
/// lack: the board part number, the device and host PCIe generations, the
/// atomic caps, the T.Limit temperature, the deferred clocks, the fabric.
/// 520 is where the DTD went to v12 (`render::report_xml::dtd_version`).
const V12_DTD_FROM: u32 = 520;

/// The v12 layout of the 535 branch (clocks "event" reasons, GPU and module
/// power readings, the reset status, JPEG/OFA utilisation, protected memory):
/// present in the 535 and 536 documents seen, absent from the 525 one.
const V12_FROM: u32 = 535;

/// Lines that the 570 document has and the 535/536 ones lack (platform info,
/// the InfoROM BBX flush, C2C mode, recovery action, the PCI class codes, the
/// sparse mode, DRAM encryption, the split SRAM counts and their sources,
/// average and instant power, memory power, power smoothing and profiles,
/// the fabric's clique and health, capabilities), and the ones they replace.
/// No 545-565 document was available: 570 is the oldest driver seen with them.
const V12_LATE_FROM: u32 = 570;

/// Lines that the 545 text report (545.23, H100) has and the 535 ones lack:
/// the GPU C2C mode (after the GSP version), the memory power readings (one
/// draw). 545 also has the InfoROM BBX flush, which 535 took in 535.129.
const V12_MID_FROM: u32 = 545;

/// Lines that the 550 to 565 reports have and the 545 one lacks: the vGPU
/// heterogeneous mode, the GSP firmware version after the reset status, the
/// PCI class codes, the sparse operation mode and the split SRAM counts (535
/// took both in 535.161), the fabric's clique and health
/// (bandwidth only). 550.54 is the oldest report seen with them.
const R550: u32 = 550;

/// The 535 branch took some of them late: the InfoROM BBX flush (535.129 on;
/// not in 535.54/535.86), the sparse operation mode and the split SRAM counts
/// (535.161 on; not in 535.129 or 535.154). Windows
/// drivers of that branch are numbered 536-539; the one seen (536.40, XML)
/// has none of them, so only the 535 numbers count.
const R535: u32 = 535;

/// The atomic caps: inbound, then outbound, before 560 (the 550 and 555
/// reports); outbound first from 560 on (560, 565, 570).
const OUTBOUND_FIRST_FROM: u32 = 560;

/// The clocks event reason counters: in a 576.88 `-d PERFORMANCE` report
/// (colon in column 42), not in the 570.124 one.
const COUNTERS_FROM: u32 = 575;

/// The capabilities (EGM): in the 555, 560 and 565 reports, not in the
/// 550 ones (550.127 the newest seen).
const CAPABILITIES_FROM: u32 = 555;

/// The GPU recovery action, and platform info in place of the module id:
/// from 565 on (the 565 report; 560 has neither).
const RECOVERY_FROM: u32 = 565;

/// (Before 450 the text report spells "Virtualization mode" (the 375-418
/// reports; 470 has "Virtualization Mode"): placed with the column change,
/// unverified in between. The retired pages' "Pending Page Blacklist" is
/// "Pending" in the 418 report, placed with the XML's pending_blacklist.)
/// The text report's colon column by driver: (from this major on, column).
/// 36 in the 375-440 reports people posted, 42 from 450 (450.66) to 570
/// (570.124), 55 from 580 (580.126) on.
const COLON_COLUMNS: &[(u32, usize)] = &[(0, 36), (COLON_42_FROM, 42), (V13_FROM, 55)];

/// Where the colon column went from 36 to 42 (440.36 has 36, 450.66 42).
const COLON_42_FROM: u32 = 450;

/// Where the text report's colon goes for a driver of this major version.
pub fn colon_column(major: u32) -> usize {
    COLON_COLUMNS
        .iter()
        .rev()
        .find(|(from, _)| major >= *from)
        .map_or(55, |(_, c)| *c)
}

/// A line whose value is the `--query-gpu` field `field`.
const fn q(label: &'static str, xml: &'static str, field: Fact, unit: &'static str) -> Decl {
    Decl::Entry {
        label,
        xml,
        unit,
        read: Read::Field(field),
    }
}

/// A line read by a getter of the report's own.
const fn f(
    label: &'static str,
    xml: &'static str,
    read: fn(&GpuCtx) -> Value,
    unit: &'static str,
) -> Decl {
    Decl::Entry {
        label,
        xml,
        unit,
        read: Read::Fn(read),
    }
}

/// The XML form of a `--query-gpu` field printed in hexadecimal: its digits
/// without `0x`.
const fn hex(xml: &'static str, field: Fact) -> Decl {
    Decl::Entry {
        label: "",
        xml,
        unit: "",
        read: Read::Hex(field),
    }
}

const fn s(label: &'static str, xml: &'static str, items: &'static [Decl]) -> Decl {
    Decl::Section { label, xml, items }
}

const MIB: &str = " MiB";
const W: &str = " W";
const MHZ: &str = " MHz";
const PCT: &str = " %";
const C: &str = " C";
const US: &str = " us";
const BANKS: &str = " bank(s)";

use Display as D;

/// Lines shown by no `-d` type: the whole report only.
const ALL: &[Display] = &[];

/// Sections the whole text report leaves out: only `-d` shows them (the
/// XML report always has them). Their text layout comes from reports
/// people posted, not from a capture.
pub const ONLY_ASKED: &[Display] = &[Display::SupportedClocks];
pub const ONLY_ASKED_TARGET_TEMP: &[Display] = &[Display::SupportedGpuTargetTemp];

/// The GPU's part of the report: (the `-d` types that show it, its lines).
#[rustfmt::skip]
pub static GPU: &[(&[Display], &[Decl])] = &[
    (ALL, &[
        q("Product Name", "product_name", F::Name, ""),
        q("Product Brand", "product_brand", F::Brand, ""),
        Decl::Since(V11_FROM, &[q("Product Architecture", "product_architecture", F::Architecture, "")]),
        q("Display Mode", "display_mode", F::DisplayMode, ""),
        Decl::Since(V13_FROM, &[q("Display Attached", "display_attached", F::DisplayAttached, "")]),
        q("Display Active", "display_active", F::DisplayActive, ""),
        q("Persistence Mode", "persistence_mode", F::PersistenceMode, ""),
        Decl::Since(V12_FROM, &[
        q("Addressing Mode", "addressing_mode", F::AddressingMode, ""),
        ]),
        Decl::Since(V10_FROM, &[
        s("MIG Mode", "mig_mode", &[
            q("Current", "current_mig", F::MigModeCurrent, ""),
            q("Pending", "pending_mig", F::MigModePending, ""),
        ]),
        Decl::Many(g::mig_devices),
        ]),
    ]),
    (&[D::Accounting], &[
        q("Accounting Mode", "accounting_mode", F::AccountingMode, ""),
        q("Accounting Mode Buffer Size", "accounting_mode_buffer_size", F::AccountingBufferSize, ""),
    ]),
    (ALL, &[
        s("Driver Model", "driver_model", &[
            q("Current", "current_dm", F::DriverModelCurrent, ""),
            q("Pending", "pending_dm", F::DriverModelPending, ""),
        ]),
        q("Serial Number", "serial", F::Serial, ""),
        q("GPU UUID", "uuid", F::Uuid, ""),
        Decl::Since(V13_FROM, &[q("GPU PDI", "pdi", F::Pdi, "")]),
        q("Minor Number", "minor_number", F::MinorNumber, ""),
        q("VBIOS Version", "vbios_version", F::VbiosVersion, ""),
        q("MultiGPU Board", "multigpu_board", F::MultiGpuBoard, ""),
        q("Board ID", "board_id", F::BoardId, ""),
        Decl::Since(V12_DTD_FROM, &[q("Board Part Number", "board_part_number", F::BoardPartNumber, "")]),
        f("GPU Part Number", "gpu_part_number", g::gpu_part_number, ""),
        Decl::Since(V12_FROM, &[
        f("FRU Part Number", "gpu_fru_part_number", none, ""),
        ]),
        Decl::Before(RECOVERY_FROM, &[Decl::Since(R470, &[q("Module ID", "gpu_module_id", F::ModuleId, "")])]),
        Decl::Since(RECOVERY_FROM, &[Decl::Before(V12_LATE_FROM, PLATFORM_565)]),
        Decl::Since(V12_LATE_FROM, &[
        s("Platform Info", "platformInfo", &[
            f("Chassis Serial Number", "chassis_serial_number", |c| g::rack(c, F::PlatformChassisSerialNumber), ""),
            f("Slot Number", "slot_number", |c| g::rack(c, F::PlatformSlotNumber), ""),
            f("Tray Index", "tray_index", |c| g::rack(c, F::PlatformTrayIndex), ""),
            f("Host ID", "host_id", |c| g::rack(c, F::PlatformHostId), ""),
            f("Peer Type", "peer_type", |c| g::rack(c, F::PlatformPeerType), ""),
            q("Module Id", "module_id", F::ModuleId, ""),
            f("GPU Fabric GUID", "gpu_fabric_guid", g::fabric_guid, ""),
        ]),
        ]),
        s("Inforom Version", "inforom_version", &[
            q("Image Version", "img_version", F::InforomImg, ""),
            q("OEM Object", "oem_object", F::InforomOem, ""),
            q("ECC Object", "ecc_object", F::InforomEcc, ""),
            q("Power Management Object", "pwr_object", F::InforomPwr, ""),
        ]),
        Decl::Backported(R535, 129, V12_MID_FROM, &[
        s("Inforom BBX Object Flush", "inforom_bbx_flush", &[
            q("Latest Timestamp", "latest_timestamp", F::BbxFlushTimestamp, ""),
            q("Latest Duration", "latest_duration", F::BbxFlushDuration, US),
        ]),
        ]),
        Decl::Since(KMD_NAMED_FROM, INFOROM_TIME),
        s("GPU Operation Mode", "gpu_operation_mode", &[
            q("Current", "current_gom", F::GomCurrent, ""),
            q("Pending", "pending_gom", F::GomPending, ""),
        ]),
    ]),
    // Before 570 the GSP firmware version follows the operation mode.
    (&[D::GspFirmwareVersion], &[Decl::Before(R550, &[Decl::Since(R470, GSP)])]),
    (ALL, &[
        Decl::Since(V12_MID_FROM, &[q("GPU C2C Mode", "c2c_mode", F::C2cMode, "")]),
        s("GPU Virtualization Mode", "gpu_virtualization_mode", &[
            Decl::Renamed(COLON_42_FROM, &[("Virtualization Mode", "Virtualization mode")], &[
            q("Virtualization Mode", "virtualization_mode", F::VirtualizationMode, "")]),
            Decl::Since(V10_FROM, &[q("Host VGPU Mode", "host_vgpu_mode", F::HostVgpuMode, "")]),
            Decl::Since(R550, &[
                q("vGPU Heterogeneous Mode", "vgpu_heterogeneous_mode", F::VgpuHeterogeneousMode, ""),
            ]),
        ]),
        Decl::Since(V12_FROM, &[Decl::Before(V13_FROM, RESET_STATUS)]),
        Decl::Since(RECOVERY_FROM, &[q("GPU Recovery Action", "gpu_recovery_action", F::GpuRecoveryAction, "")]),
    ]),
    (&[D::GspFirmwareVersion], &[Decl::Since(R550, GSP)]),
    (ALL, &[
        s("IBMNPU", "ibmnpu", &[f("Relaxed Ordering Mode", "relaxed_ordering_mode", none, "")]),
        s("PCI", "pci", &[
            Decl::Text(&[
                q("Bus", "", F::PciBus, ""),
                q("Device", "", F::PciDevice, ""),
                q("Domain", "", F::PciDomain, ""),
            ]),
            Decl::Xml(&[hex("pci_bus", F::PciBus), hex("pci_device", F::PciDevice), hex("pci_domain", F::PciDomain)]),
            Decl::Pick(|c, _| if c.pci_ext().is_ok() && c.driver_major() >= R550 { CLASS } else { &[] }),
            Decl::Text(&[q("Device Id", "", F::PciDeviceId, "")]),
            Decl::Xml(&[hex("pci_device_id", F::PciDeviceId)]),
            q("Bus Id", "pci_bus_id", F::PciBusId, ""),
            Decl::Text(&[q("Sub System Id", "", F::PciSubDeviceId, "")]),
            Decl::Xml(&[hex("pci_sub_system_id", F::PciSubDeviceId)]),
            s("GPU Link Info", "pci_gpu_link_info", &[
                s("PCIe Generation", "pcie_gen", &[
                    q("Max", "max_link_gen", F::PcieLinkGenMax, ""),
                    q("Current", "current_link_gen", F::PcieLinkGenCurrent, ""),
                    Decl::Since(V12_DTD_FROM, &[
                    q("Device Current", "device_current_link_gen", F::PcieLinkGenGpucurrent, ""),
                    q("Device Max", "max_device_link_gen", F::PcieLinkGenGpumax, ""),
                    q("Host Max", "max_host_link_gen", F::PcieLinkGenHostmax, ""),
                    ]),
                ]),
                s("Link Width", "link_widths", &[
                    q("Max", "max_link_width", F::PcieLinkWidthMax, "x"),
                    q("Current", "current_link_width", F::PcieLinkWidthCurrent, "x"),
                ]),
            ]),
            s("Bridge Chip", "pci_bridge_chip", &[
                q("Type", "bridge_chip_type", F::BridgeChipType, ""),
                q("Firmware", "bridge_chip_fw", F::BridgeChipFirmware, ""),
            ]),
            q("Replays Since Reset", "replay_counter", F::PcieReplayCounter, ""),
            q("Replay Number Rollovers", "replay_rollover_counter", F::PcieReplayRolloverCounter, ""),
            q("Tx Throughput", "tx_util", F::PcieTxThroughput, " KB/s"),
            q("Rx Throughput", "rx_util", F::PcieRxThroughput, " KB/s"),
            Decl::Before(OUTBOUND_FIRST_FROM, &[Decl::Since(V12_DTD_FROM, &[
            q("Atomic Caps Inbound", "atomic_caps_inbound", F::PcieAtomicCapsInbound, ""),
            q("Atomic Caps Outbound", "atomic_caps_outbound", F::PcieAtomicCapsOutbound, ""),
            ])]),
            Decl::Since(OUTBOUND_FIRST_FROM, &[
            q("Atomic Caps Outbound", "atomic_caps_outbound", F::PcieAtomicCapsOutbound, ""),
            q("Atomic Caps Inbound", "atomic_caps_inbound", F::PcieAtomicCapsInbound, ""),
            ]),
        ]),
        q("Fan Speed", "fan_speed", F::FanSpeed, PCT),
    ]),
    (&[D::Performance], &[
        q("Performance State", "performance_state", F::Pstate, ""),
        Decl::Renamed(V12_FROM, THROTTLE_NAMES, &[
        Decl::Pick(|c, _| if g::reasons_known(c) { EVENT_REASONS } else { NO_EVENT_REASONS }),
        ]),
        Decl::Since(COUNTERS_FROM, COUNTERS),
    ]),
    // `-d PERFORMANCE` shows the sparse mode too (a 576.88 report).
    (&[D::Performance], &[Decl::Backported(R535, 161, R550, &[f("Sparse Operation Mode", "sparse_operation_mode", none, "")])]),
    (&[D::Memory], &[
        s("FB Memory Usage", "fb_memory_usage", &[
            q("Total", "total", F::MemoryTotal, MIB),
            Decl::Since(V11_FROM, &[q("Reserved", "reserved", F::MemoryReserved, MIB)]),
            q("Used", "used", F::MemoryUsed, MIB),
            q("Free", "free", F::MemoryFree, MIB),
        ]),
        s("BAR1 Memory Usage", "bar1_memory_usage", &[
            q("Total", "total", F::Bar1MemoryTotal, MIB),
            q("Used", "used", F::Bar1MemoryUsed, MIB),
            q("Free", "free", F::Bar1MemoryFree, MIB),
        ]),
        Decl::Since(V12_FROM, &[
        s("Conf Compute Protected Memory Usage", "cc_protected_memory_usage", &[
            q("Total", "total", F::ProtectedMemoryTotal, MIB),
            q("Used", "used", F::ProtectedMemoryUsed, MIB),
            q("Free", "free", F::ProtectedMemoryFree, MIB),
        ]),
        ]),
    ]),
    (&[D::Compute], &[q("Compute Mode", "compute_mode", F::ComputeMode, "")]),
    (&[D::Utilization], &[s("Utilization", "utilization", &[
        Decl::Renamed(V12_LATE_FROM, &[("GPU", "Gpu")], &[q("GPU", "gpu_util", F::UtilizationGpu, PCT)]),
        q("Memory", "memory_util", F::UtilizationMemory, PCT),
        q("Encoder", "encoder_util", F::UtilizationEncoder, PCT),
        q("Decoder", "decoder_util", F::UtilizationDecoder, PCT),
        Decl::Since(V12_FROM, &[
        q("JPEG", "jpeg_util", F::UtilizationJpeg, PCT),
        q("OFA", "ofa_util", F::UtilizationOfa, PCT),
        ]),
    ]),
    Decl::Asked(&[
        Decl::Build(|c, _| g::samples(c, "GPU Utilization Samples", Sampling::GpuUtilization, SampleKind::Percent)),
        Decl::Build(|c, _| g::samples(c, "Memory Utilization Samples", Sampling::MemoryUtilization, SampleKind::Percent)),
        Decl::Build(|c, _| g::samples(c, "ENC Utilization Samples", Sampling::EncoderUtilization, SampleKind::Percent)),
        Decl::Build(|c, _| g::samples(c, "DEC Utilization Samples", Sampling::DecoderUtilization, SampleKind::Percent)),
    ])]),
    (&[D::EncoderStats], &[s("Encoder Stats", "encoder_stats", &[
        q("Active Sessions", "session_count", F::EncoderStatsSessionCount, ""),
        q("Average FPS", "average_fps", F::EncoderStatsAverageFps, ""),
        q("Average Latency", "average_latency", F::EncoderStatsAverageLatency, ""),
    ])]),
    (&[D::FbcStats], &[s("FBC Stats", "fbc_stats", &[
        q("Active Sessions", "session_count", F::FbcSessionCount, ""),
        q("Average FPS", "average_fps", F::FbcAverageFps, ""),
        q("Average Latency", "average_latency", F::FbcAverageLatency, ""),
    ])]),
    (ALL, &[Decl::Since(V12_LATE_FROM, &[s("DRAM Encryption Mode", "dram_encryption_mode", &[
        q("Current", "current_dram_encryption", F::DramEncryptionModeCurrent, ""),
        q("Pending", "pending_dram_encryption", F::DramEncryptionModePending, ""),
    ])])]),
    (&[D::Ecc], &[
        Decl::Renamed(V12_FROM, &[("ECC Mode", "Ecc Mode")], &[s("ECC Mode", "ecc_mode", &[
            q("Current", "current_ecc", F::EccModeCurrent, ""),
            q("Pending", "pending_ecc", F::EccModePending, ""),
        ])]),
        // From 570 on the text view splits SRAM errors only where NVML
        // reports them, the XML view always; Pascal and older count by place.
        Decl::Pick(|c, _| if g::ecc_by_location(c) { ECC_LOCATIONS } else { ECC_ERRORS }),
    ]),
    (&[D::PageRetirement], &[
        Decl::Text(&[s("Retired Pages", "", &[
            q("Single Bit ECC", "", F::RetiredPagesSingleBitEccCount, ""),
            q("Double Bit ECC", "", F::RetiredPagesDoubleBitCount, ""),
            Decl::Renamed(V10_FROM, &[("Pending Page Blacklist", "Pending")], &[
            q("Pending Page Blacklist", "", F::RetiredPagesPending, "")]),
        ])]),
        Decl::Xml(&[s("", "retired_pages", &[
            s("", "multiple_single_bit_retirement", &[
                q("", "retired_count", F::RetiredPagesSingleBitEccCount, ""),
                Decl::Build(|c, _| g::retired_list(c, false)),
            ]),
            s("", "double_bit_retirement", &[
                q("", "retired_count", F::RetiredPagesDoubleBitCount, ""),
                Decl::Build(|c, _| g::retired_list(c, true)),
            ]),
            Decl::Since(V10_FROM, &[q("", "pending_blacklist", F::RetiredPagesPending, "")]),
            q("", "pending_retirement", F::RetiredPagesPending, ""),
        ])]),
    ]),
    (&[D::RowRemapper], &[Decl::Since(V10_FROM, &[
    Decl::Pick(|c, _| if g::has_remapping(c) { REMAPPED } else { NO_REMAPPING }),
    ])]),
    // The T.Limit names from 535 (a 525.105 report names a T.Limit GPU's
    // thresholds plainly; 535.154 and 535.161 after the margin).
    (&[D::Temperature], &[Decl::Pick(|c, _| {
        if tlimit(c) && c.driver_major() >= V12_FROM { TEMP_TLIMIT } else { TEMP_PLAIN }
    })]),
    (ONLY_ASKED_TARGET_TEMP, &[Decl::Since(V10_FROM, &[s("Supported GPU Target Temp", "supported_gpu_target_temp", &[
        q("GPU Target Temp Min", "gpu_target_temp_min", F::TemperatureAcousticMin, C),
        q("GPU Target Temp Max", "gpu_target_temp_max", F::TemperatureAcousticMax, C),
    ])])]),
    (&[D::Power], &[
        Decl::Before(V12_FROM, POWER_READINGS),
        Decl::Since(V12_FROM, &[Decl::Part(POWER)]),
        Decl::Asked(&[Decl::Build(|c, _| g::samples(c, "Power Samples", Sampling::Power, SampleKind::Power))]),
        Decl::Since(V12_MID_FROM, &[
        s("GPU Memory Power Readings ", "gpu_memory_power_readings", &[
            Decl::Before(V12_LATE_FROM, MEMORY_POWER_DRAW),
            Decl::Since(V12_LATE_FROM, &[
            q("Average Power Draw", "average_power_draw", F::MemoryPowerAverage, W),
            q("Instantaneous Power Draw", "instant_power_draw", F::MemoryPowerInstant, W),
            ]),
        ]),
        ]),
        Decl::Since(V12_FROM, &[
        s("Module Power Readings", "module_power_readings", &[
            Decl::Xml(&[f("", "power_state", g::power_state, "")]),
            Decl::Before(V12_LATE_FROM, &[q("Power Draw", "power_draw", F::ModulePowerDrawInstant, W)]),
            Decl::Since(V12_LATE_FROM, &[
            q("Average Power Draw", "average_power_draw", F::ModulePowerDrawAverage, W),
            q("Instantaneous Power Draw", "instant_power_draw", F::ModulePowerDrawInstant, W),
            ]),
            q("Current Power Limit", "current_power_limit", F::ModuleEnforcedPowerLimit, W),
            q("Requested Power Limit", "requested_power_limit", F::ModulePowerLimit, W),
            q("Default Power Limit", "default_power_limit", F::ModulePowerDefaultLimit, W),
            q("Min Power Limit", "min_power_limit", F::ModulePowerMinLimit, W),
            q("Max Power Limit", "max_power_limit", F::ModulePowerMaxLimit, W),
        ]),
        ]),
    ]),
    (&[D::PowerSmoothing], &[Decl::Since(V12_LATE_FROM, &[q("Power Smoothing", "power_smoothing", F::PowerSmoothingState, "")])]),
    (&[D::PowerProfiles], &[Decl::Since(V12_LATE_FROM, &[s("Workload Power Profiles", "power_profiles", &[
        q("Requested Profiles", "power_profile_requested_profiles", F::PowerProfilesRequested, ""),
        q("Enforced Profiles", "power_profile_enforced_profiles", F::PowerProfilesEnforced, ""),
    ])])]),
    (&[D::Power], &[Decl::Since(V13_FROM, &[q("EDPp Multiplier", "edpp_multiplier", F::EdppMultiplier, "%")])]),
    (&[D::Clock], &[
        s("Clocks", "clocks", &[
            q("Graphics", "graphics_clock", F::ClocksCurrentGraphics, MHZ),
            q("SM", "sm_clock", F::ClocksCurrentSm, MHZ),
            q("Memory", "mem_clock", F::ClocksCurrentMemory, MHZ),
            q("Video", "video_clock", F::ClocksCurrentVideo, MHZ),
        ]),
        s("Applications Clocks", "applications_clocks", &[
            q("Graphics", "graphics_clock", F::ClocksApplicationsGraphics, MHZ),
            q("Memory", "mem_clock", F::ClocksApplicationsMemory, MHZ),
        ]),
        s("Default Applications Clocks", "default_applications_clocks", &[
            q("Graphics", "graphics_clock", F::ClocksDefaultApplicationsGraphics, MHZ),
            q("Memory", "mem_clock", F::ClocksDefaultApplicationsMemory, MHZ),
        ]),
        Decl::Since(V12_DTD_FROM, &[s("Deferred Clocks", "deferred_clocks", &[f("Memory", "mem_clock", none, "")])]),
        s("Max Clocks", "max_clocks", &[
            q("Graphics", "graphics_clock", F::ClocksMaxGraphics, MHZ),
            q("SM", "sm_clock", F::ClocksMaxSm, MHZ),
            q("Memory", "mem_clock", F::ClocksMaxMemory, MHZ),
            q("Video", "video_clock", F::ClocksMaxVideo, MHZ),
        ]),
        s("Max Customer Boost Clocks", "max_customer_boost_clocks", &[
            q("Graphics", "graphics_clock", F::ClocksMaxBoostGraphics, MHZ),
        ]),
        Decl::Asked(&[
            Decl::Build(|c, _| g::samples(c, "SM Clock Samples", Sampling::ProcessorClock, SampleKind::Mhz)),
            Decl::Build(|c, _| g::samples(c, "Memory Clock Samples", Sampling::MemoryClock, SampleKind::Mhz)),
        ]),
        s("Clock Policy", "clock_policy", &[
            q("Auto Boost", "auto_boost", F::AutoBoost, ""),
            q("Auto Boost Default", "auto_boost_default", F::AutoBoostDefault, ""),
        ]),
    ]),
    // Drivers from 580 on dropped the graphics voltage (their manual page's
    // changelog) and print no Voltage section; `-d VOLTAGE` then shows the
    // GPU's heading alone (unverified: no capture of it). NVML offers no
    // public voltage reading: nvq prints N/A where older drivers printed
    // `631.250 mV`.
    (&[D::Voltage], &[Decl::Before(V13_FROM, &[Decl::Since(R470, &[
        s("Voltage", "voltage", &[f("Graphics", "graphics_volt", none, "")]),
    ])])]),
    (ALL, &[Decl::Since(V12_DTD_FROM, &[s("Fabric", "fabric", &[
        q("State", "state", F::FabricState, ""),
        q("Status", "status", F::FabricStatus, ""),
        Decl::Since(R550, &[
        q("CliqueId", "cliqueId", F::FabricCliqueId, ""),
        q("ClusterUUID", "clusterUuid", F::FabricClusterUuid, ""),
        s("Health", "health", HEALTH),
        ]),
    ])])]),
    (ONLY_ASKED, &[Decl::Build(g::supported_clocks)]),
    (&[D::Pids], &[Decl::Build(g::processes)]),
    // The text report lists them only when `-d ACCOUNTING` asks (the
    // captures of the whole report have no such line).
    (&[D::Accounting], &[
        Decl::Xml(&[Decl::Build(g::accounted_processes)]),
        Decl::Text(&[Decl::Asked(&[Decl::Build(g::accounted_processes)])]),
    ]),
    (ALL, &[Decl::Since(CAPABILITIES_FROM, &[s("Capabilities", "capabilities", &[q("EGM", "egm", F::Egm, "")])])]),
];

#[rustfmt::skip]
const COUNTERS: &[Decl] = &[
    s("Clocks Event Reasons Counters", "clocks_event_reasons_counters", &[
            q("SW Power Capping", "clocks_event_reasons_counters_sw_power_cap",
              F::ClocksEventReasonsCountersSwPowerCap, US),
            q("Sync Boost", "clocks_event_reasons_counters_sync_boost",
              F::ClocksEventReasonsCountersSyncBoost, US),
            q("SW Thermal Slowdown", "clocks_event_reasons_counters_sw_therm_slowdown",
              F::ClocksEventReasonsCountersSwThermalSlowdown, US),
            q("HW Thermal Slowdown", "clocks_event_reasons_counters_hw_therm_slowdown",
              F::ClocksEventReasonsCountersHwThermalSlowdown, US),
            q("HW Power Braking", "clocks_event_reasons_counters_hw_power_brake",
              F::ClocksEventReasonsCountersHwPowerBrakeSlowdown, US),
        ]),
];

#[rustfmt::skip]
const INFOROM_TIME: &[Decl] = &[s("Inforom Time Data", "inforom_time_data", &[f("Time Run", "time_run", none, "")])];

/// The class codes: not printed where NVML has no extended PCI info (WDDM).
#[rustfmt::skip]
const CLASS: &[Decl] = &[
    Decl::Text(&[
        q("Base Classcode", "", F::PciBaseClass, ""),
        q("Sub Classcode", "", F::PciSubClass, ""),
    ]),
    Decl::Xml(&[hex("pci_base_class", F::PciBaseClass), hex("pci_sub_class", F::PciSubClass)]),
];

/// The ECC error counts: uncorrectable SRAM errors split (parity, SEC-DED)
/// with their sources, and the repair status (580 on), where `sram_split`
/// says so.
#[rustfmt::skip]
const ECC_ERRORS: &[Decl] = &[s("ECC Errors", "ecc_errors", &[Decl::Masked(no_ecc_mode, &[
    s("Volatile", "volatile", &[
        q("SRAM Correctable", "sram_correctable", F::EccErrorsCorrectedVolatileSram, ""),
        Decl::Pick(|c, v| if sram_split(c, v) { VOLATILE_SPLIT } else { VOLATILE_SRAM }),
        q("DRAM Correctable", "dram_correctable", F::EccErrorsCorrectedVolatileDram, ""),
        q("DRAM Uncorrectable", "dram_uncorrectable", F::EccErrorsUncorrectedVolatileDram, ""),
    ]),
    s("Aggregate", "aggregate", &[
        q("SRAM Correctable", "sram_correctable", F::EccErrorsCorrectedAggregateSram, ""),
        Decl::Pick(|c, v| if sram_split(c, v) { AGGREGATE_SPLIT } else { AGGREGATE_SRAM }),
        q("DRAM Correctable", "dram_correctable", F::EccErrorsCorrectedAggregateDram, ""),
        q("DRAM Uncorrectable", "dram_uncorrectable", F::EccErrorsUncorrectedAggregateDram, ""),
        Decl::Pick(|c, v| if sram_split(c, v) { THRESHOLD } else { &[] }),
    ]),
    Decl::Pick(|c, v| if sram_split(c, v) { SRAM_SOURCES } else { &[] }),
]), Decl::Pick(|c, v| if sram_split(c, v) { SRAM_REPAIRS } else { &[] })])];

/// A GPU whose ECC mode NVML does not report (a GeForce): `-q` prints its
/// ECC counts as `N/A` even where NVML gives numbers that `--query-gpu`
/// prints (SRAM counts `0`, threshold `No`: a 595.71 GeForce report).
fn no_ecc_mode(c: &GpuCtx) -> bool {
    c.ecc_mode() == Err(crate::model::NvmlCode::NOT_SUPPORTED)
}

/// Split or not: from 580 on the text view splits only where NVML reports
/// SRAM errors (the 590 and 610 captures), the XML view always; from 545 to
/// 579 both always split, `N/A` where NVML has no counts (the 550, 560 and
/// 570 GeForce reports; 545.23 does not split); the 535 branch from 535.161
/// on (the 535.161 H100 and 535.247 A10G reports; 535.129 and 535.154 do
/// not split).
fn sram_split(c: &GpuCtx, view: View) -> bool {
    let (major, minor) = super::release(c);
    if major >= V13_FROM {
        return view == View::Xml || c.sram().is_ok();
    }
    major >= R550 || (major == R535 && minor >= 161)
}

/// Pascal and older count errors by memory location.
const ECC_LOCATIONS: &[Decl] = &[Decl::Build(g::ecc_locations)];

/// The SRAM row of one set of uncorrectable ECC counts (volatile or aggregate), as one total.
const fn sram_total(total: Fact) -> [Decl; 1] {
    [q("SRAM Uncorrectable", "sram_uncorrectable", total, "")]
}

/// The same, split by how the error was found (drivers that split it, see [`sram_split`]).
#[rustfmt::skip]
const fn sram_by_kind(parity: Fact, secded: Fact) -> [Decl; 2] {
    [
        q("SRAM Uncorrectable Parity", "sram_uncorrectable_parity", parity, ""),
        q("SRAM Uncorrectable SEC-DED", "sram_uncorrectable_secded", secded, ""),
    ]
}

const VOLATILE_SRAM: &[Decl] = &sram_total(F::EccErrorsUncorrectedVolatileSram);
const VOLATILE_SPLIT: &[Decl] = &sram_by_kind(
    F::EccErrorsUncorrectedVolatileSramParity,
    F::EccErrorsUncorrectedVolatileSramSecded,
);
const AGGREGATE_SRAM: &[Decl] = &sram_total(F::EccErrorsUncorrectedAggregateSram);
const AGGREGATE_SPLIT: &[Decl] = &sram_by_kind(
    F::EccErrorsUncorrectedAggregateSramParity,
    F::EccErrorsUncorrectedAggregateSramSecded,
);

#[rustfmt::skip]
const THRESHOLD: &[Decl] = &[q("SRAM Threshold Exceeded", "sram_threshold_exceeded",
    F::EccErrorsUncorrectedAggregateSramThresholdExceeded, "")];

#[rustfmt::skip]
const SRAM_SOURCES: &[Decl] = &[
    s("Aggregate Uncorrectable SRAM Sources", "aggregate_uncorrectable_sram_sources", &[
        q("SRAM L2", "sram_l2", F::EccErrorsUncorrectedAggregateSramL2, ""),
        q("SRAM SM", "sram_sm", F::EccErrorsUncorrectedAggregateSramSm, ""),
        q("SRAM Microcontroller", "sram_microcontroller", F::EccErrorsUncorrectedAggregateSramMcu, ""),
        q("SRAM PCIE", "sram_pcie", F::EccErrorsUncorrectedAggregateSramPcie, ""),
        q("SRAM Other", "sram_other", F::EccErrorsUncorrectedAggregateSramOther, ""),
    ]),
];

/// The repair status after the SRAM sources (580 on): not ECC counts, so
/// never masked with them.
const SRAM_REPAIRS: &[Decl] = &[Decl::Since(V13_FROM, REPAIRS)];

#[rustfmt::skip]
const REPAIRS: &[Decl] = &[
    q("Channel Repair Pending", "channel_repair_pending", F::ChannelRepairPending, ""),
    q("TPC Repair Pending", "tpc_repair_pending", F::TpcRepairPending, ""),
    q("Unrepairable Memory", "unrepairable_memory", F::UnrepairableMemory, ""),
];

/// Drivers 535 to 579 print the reset status (deprecated by 570).
#[rustfmt::skip]
const RESET_STATUS: &[Decl] = &[s("GPU Reset Status", "gpu_reset_status", &[
    f("Reset Required", "reset_required", |c| g::reset_status(c, false), ""),
    f("Drain and Reset Recommended", "drain_and_reset_recommended", |c| g::reset_status(c, true), ""),
])];

#[rustfmt::skip]
const REMAPPED: &[Decl] = &[s("Remapped Rows", "remapped_rows", &[
    q("Correctable Error", "remapped_row_corr", F::RemappedRowsCorrectable, ""),
    Decl::Since(INACTIVE_ROWS_FROM, &[
        q("Inactive Correctable Error", "remapped_row_corr_inactive", F::RemappedRowsCorrectableInactive, ""),
    ]),
    q("Uncorrectable Error", "remapped_row_unc", F::RemappedRowsUncorrectable, ""),
    Decl::Since(INACTIVE_ROWS_FROM, &[
        q("Inactive Uncorrectable Error", "remapped_row_unc_inactive", F::RemappedRowsUncorrectableInactive, ""),
    ]),
    q("Pending", "remapped_row_pending", F::RemappedRowsPending, ""),
    q("Remapping Failure Occurred", "remapped_row_failure", F::RemappedRowsFailure, ""),
    s("Bank Remap Availability Histogram", "row_remapper_histogram", &[
        q("Max", "row_remapper_histogram_max", F::RemappedRowsHistogramMax, BANKS),
        q("High", "row_remapper_histogram_high", F::RemappedRowsHistogramHigh, BANKS),
        q("Partial", "row_remapper_histogram_partial", F::RemappedRowsHistogramPartial, BANKS),
        q("Low", "row_remapper_histogram_low", F::RemappedRowsHistogramLow, BANKS),
        q("None", "row_remapper_histogram_none", F::RemappedRowsHistogramNone, BANKS),
    ]),
])];

const NO_REMAPPING: &[Decl] = &[Decl::Build(|c, _| {
    crate::model::report::Node::collapsed(
        "Remapped Rows",
        "remapped_rows",
        crate::source::gpu::get::not_available(c),
    )
})];

/// Does the GPU report a T.Limit margin? nvidia-smi then names the
/// thresholds after it.
fn tlimit(c: &GpuCtx) -> bool {
    crate::nvml::raw::margin_temperature(&c.raw()).is_ok()
}

#[rustfmt::skip]
const TEMP_TLIMIT: &[Decl] = &[s("Temperature", "temperature", &[
    q("GPU Current Temp", "gpu_temp", F::TemperatureGpu, C),
    q("GPU T.Limit Temp", "gpu_temp_tlimit", F::TemperatureGpuTlimit, C),
    q("GPU Shutdown T.Limit Temp", "gpu_temp_max_tlimit_threshold", F::TemperatureShutdown, C),
    q("GPU Slowdown T.Limit Temp", "gpu_temp_slow_tlimit_threshold", F::TemperatureSlowdown, C),
    q("GPU Max Operating T.Limit Temp", "gpu_temp_max_gpu_tlimit_threshold", F::TemperatureGpuMax, C),
    q("GPU Target Temperature", "gpu_target_temperature", F::TemperatureTarget, C),
    q("Memory Current Temp", "memory_temp", F::TemperatureMemory, C),
    q("Memory Max Operating T.Limit Temp", "gpu_temp_max_mem_tlimit_threshold", F::TemperatureMemoryMax, C),
])];

#[rustfmt::skip]
const TEMP_PLAIN: &[Decl] = &[s("Temperature", "temperature", &[
    q("GPU Current Temp", "gpu_temp", F::TemperatureGpu, C),
    Decl::Since(V12_DTD_FROM, &[Decl::Renamed(KMD_NAMED_FROM, OLD_TEMP_NAMES, &[
    q("GPU Current T.Limit Temp", "gpu_temp_tlimit", F::TemperatureGpuTlimit, C)])]),
    q("GPU Shutdown Temp", "gpu_temp_max_threshold", F::TemperatureShutdown, C),
    q("GPU Slowdown Temp", "gpu_temp_slow_threshold", F::TemperatureSlowdown, C),
    q("GPU Max Operating Temp", "gpu_temp_max_gpu_threshold", F::TemperatureGpuMax, C),
    Decl::Since(R470, &[
    Decl::Renamed(KMD_NAMED_FROM, OLD_TEMP_NAMES, &[
    q("GPU Target Temperature Specification", "gpu_target_temperature", F::TemperatureTarget, C),
    ]),
    ]),
    q("Memory Current Temp", "memory_temp", F::TemperatureMemory, C),
    q("Memory Max Operating Temp", "gpu_temp_max_mem_threshold", F::TemperatureMemoryMax, C),
])];

/// The GPU's power readings. 610 moved the three limits into a "GPU Ceiling
/// Power Limit" section beside a "GPU Base Power" one. No XML document of a
/// 610 driver was available: those two sections' element names are nvq's.
#[rustfmt::skip]
const POWER: &[Decl] = &[s("GPU Power Readings", "gpu_power_readings", &[
    Decl::Xml(&[f("", "power_state", g::power_state, "")]),
    Decl::Before(V12_LATE_FROM, &[q("Power Draw", "power_draw", F::PowerDraw, W)]),
    Decl::Since(V12_LATE_FROM, &[
    q("Average Power Draw", "average_power_draw", F::PowerDrawAverage, W),
    q("Instantaneous Power Draw", "instant_power_draw", F::PowerDrawInstant, W),
    ]),
    Decl::Before(KMD_NAMED_FROM, LIMITS),
    Decl::Since(KMD_NAMED_FROM, &[
        s("GPU Ceiling Power Limit", "gpu_ceiling_power_limit", LIMITS),
        s("GPU Base Power", "gpu_base_power", &[
            f("Current Base Power", "current_base_power", none, W),
            f("Requested Base Power", "requested_base_power", none, W),
            f("Default Base Power", "default_base_power", none, W),
        ]),
    ]),
    q("Min Power Limit", "min_power_limit", F::PowerMinLimit, W),
    q("Max Power Limit", "max_power_limit", F::PowerMaxLimit, W),
])];

#[rustfmt::skip]
const LIMITS: &[Decl] = &[
    q("Current Power Limit", "current_power_limit", F::EnforcedPowerLimit, W),
    q("Requested Power Limit", "requested_power_limit", F::PowerLimit, W),
    q("Default Power Limit", "default_power_limit", F::PowerDefaultLimit, W),
];

#[rustfmt::skip]
const HEALTH: &[Decl] = &[
    Decl::Since(V13_FROM, &[q("Summary", "summary", F::FabricHealthSummary, "")]),
    q("Bandwidth", "bandwidth", F::FabricHealthBandwidth, ""),
    Decl::Since(V12_LATE_FROM, &[
    q("Route Recovery in progress", "route_recovery_in_progress", F::FabricHealthRouteRecoveryInProgress, ""),
    q("Route Unhealthy", "route_unhealthy", F::FabricHealthRouteUnhealthy, ""),
    q("Access Timeout Recovery", "access_timeout_recovery", F::FabricHealthAccessTimeoutRecovery, ""),
    ]),
    Decl::Since(V13_FROM, INCORRECT),
    Decl::Since(PARTITION_FROM, PARTITION),
];

#[rustfmt::skip]
const INCORRECT: &[Decl] = &[q("Incorrect Configuration", "incorrect_configuration", F::FabricHealthIncorrectConfiguration, "")];

#[rustfmt::skip]
const PARTITION: &[Decl] = &[q("Partition Assigned", "partition_assigned", F::FabricHealthPartitionAssigned, "")];

/// The GSP firmware version: after the GPU operation mode before 570, after
/// the recovery action from 570 on.
#[rustfmt::skip]
const GSP: &[Decl] = &[q("GSP Firmware Version", "gsp_firmware_version", F::GspFirmwareVersion, "")];

/// Before 535 the clocks event reasons were throttle reasons: (name from 535
/// on, name before), for labels and elements alike.
#[rustfmt::skip]
const THROTTLE_NAMES: &[(&str, &str)] = &[
    ("Clocks Event Reasons", "Clocks Throttle Reasons"),
    ("clocks_event_reasons", "clocks_throttle_reasons"),
    ("clocks_event_reason_gpu_idle", "clocks_throttle_reason_gpu_idle"),
    ("clocks_event_reason_applications_clocks_setting", "clocks_throttle_reason_applications_clocks_setting"),
    ("clocks_event_reason_sw_power_cap", "clocks_throttle_reason_sw_power_cap"),
    ("clocks_event_reason_hw_slowdown", "clocks_throttle_reason_hw_slowdown"),
    ("clocks_event_reason_hw_thermal_slowdown", "clocks_throttle_reason_hw_thermal_slowdown"),
    ("clocks_event_reason_hw_power_brake_slowdown", "clocks_throttle_reason_hw_power_brake_slowdown"),
    ("clocks_event_reason_sync_boost", "clocks_throttle_reason_sync_boost"),
    ("clocks_event_reason_sw_thermal_slowdown", "clocks_throttle_reason_sw_thermal_slowdown"),
    ("clocks_event_reason_display_clocks_setting", "clocks_throttle_reason_display_clocks_setting"),
];

/// Before 535 one "Power Readings" section: the management mode, one draw,
/// the requested limit as "Power Limit" and the enforced one after the
/// default (the 525 document's layout).
#[rustfmt::skip]
const POWER_READINGS: &[Decl] = &[s("Power Readings", "power_readings", &[
    Decl::Xml(&[f("", "power_state", g::power_state, "")]),
    q("Power Management", "power_management", F::PowerManagementSupport, ""),
    q("Power Draw", "power_draw", F::PowerDraw, W),
    q("Power Limit", "power_limit", F::PowerLimit, W),
    q("Default Power Limit", "default_power_limit", F::PowerDefaultLimit, W),
    q("Enforced Power Limit", "enforced_power_limit", F::EnforcedPowerLimit, W),
    q("Min Power Limit", "min_power_limit", F::PowerMinLimit, W),
    q("Max Power Limit", "max_power_limit", F::PowerMaxLimit, W),
])];

/// Before 610 the text report named two temperature lines otherwise: the
/// 470-570 reports and the 590, 591 and 595 ones (GPUs without a T.Limit
/// margin) have the older names, only 610's captures the newer ones.
#[rustfmt::skip]
const OLD_TEMP_NAMES: &[(&str, &str)] = &[
    ("GPU Current T.Limit Temp", "GPU T.Limit Temp"),
    ("GPU Target Temperature Specification", "GPU Target Temperature"),
];

/// The memory power readings of 545-569: one draw (`N/A` in every report
/// seen, so which NVML reading it shows is not known: nvq shows the instant
/// one).
#[rustfmt::skip]
const MEMORY_POWER_DRAW: &[Decl] = &[q("Power Draw", "power_draw", F::MemoryPowerInstant, W)];

/// The clocks event reasons, or (where NVML reports none) one `N/A` line in
/// their place (the 470 GeForce GTX 680 report: `Clocks Throttle Reasons :
/// N/A`; the XML form of that case is not known).
#[rustfmt::skip]
const EVENT_REASONS: &[Decl] = &[
        s("Clocks Event Reasons", "clocks_event_reasons", &[
            q("Idle", "clocks_event_reason_gpu_idle", F::ClocksEventReasonsGpuIdle, ""),
            q("Applications Clocks Setting", "clocks_event_reason_applications_clocks_setting",
              F::ClocksEventReasonsApplicationsClocksSetting, ""),
            q("SW Power Cap", "clocks_event_reason_sw_power_cap", F::ClocksEventReasonsSwPowerCap, ""),
            Decl::Build(super::hw_slowdown),
            q("Sync Boost", "clocks_event_reason_sync_boost", F::ClocksEventReasonsSyncBoost, ""),
            q("SW Thermal Slowdown", "clocks_event_reason_sw_thermal_slowdown",
              F::ClocksEventReasonsSwThermalSlowdown, ""),
            f("Display Clock Setting", "clocks_event_reason_display_clocks_setting",
              |c| crate::source::gpu::get::reason_bit(c, u64::from(nvmlClocksEventReasonDisplayClockSetting)), ""),
        ]),
];

#[rustfmt::skip]
const NO_EVENT_REASONS: &[Decl] = &[Decl::Build(|c, _| {
    crate::model::report::Node::collapsed(
        "Clocks Event Reasons",
        "clocks_event_reasons",
        crate::source::gpu::get::reason_bit(c, u64::from(nvmlClocksEventReasonGpuIdle)),
    )
})];

/// The platform info of 565 (the 565 H100 report), under older labels than
/// 570's and without the fabric GUID. Its XML element names are not known:
/// nvq uses 570's.
#[rustfmt::skip]
const PLATFORM_565: &[Decl] = &[s("Platform Info", "platformInfo", &[
    f("RACK Serial Number", "chassis_serial_number", |c| g::rack(c, F::PlatformChassisSerialNumber), ""),
    f("Chassis Physical Slot Number", "slot_number", |c| g::rack(c, F::PlatformSlotNumber), ""),
    f("Compute Slot Index", "tray_index", |c| g::rack(c, F::PlatformTrayIndex), ""),
    f("Node Index", "host_id", |c| g::rack(c, F::PlatformHostId), ""),
    f("Peer Type", "peer_type", |c| g::rack(c, F::PlatformPeerType), ""),
    q("Module Id", "module_id", F::ModuleId, ""),
])];
