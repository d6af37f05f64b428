//! The per-GPU context that `--query-gpu` getters read from.
//!
//! One context is built per GPU per sample. It caches each NVML struct the
//! first time a getter needs it, so that four memory fields cost one
//! `nvmlDeviceGetMemoryInfo_v2` call, not four, and every field-value field
//! of a row shares one `nvmlDeviceGetFieldValues` call. Only the structs that
//! the requested fields need are ever read.

use crate::model::Value;
use crate::nvml::raw::{self, Dev, FabricInfo, FieldVal, MemInfo, RemappedRows};
use crate::nvml::{NvmlCode, Session};
use crate::source::sysmem;
use nvml_wrapper::enum_wrappers::device::RetirementCause;
use nvml_wrapper::struct_wrappers::device::{BAR1MemoryInfo, PciInfo, Utilization};
use nvml_wrapper::structs::device::RetiredPage;
use nvml_wrapper::Device;
use nvml_wrapper_sys::bindings::{
    nvmlDevice_t, nvmlEccSramErrorStatus_t, nvmlMemory_t, nvmlPciInfoExt_t, nvmlPlatformInfo_t,
    nvmlRowRemapperHistogramValues_t,
};
use std::cell::{Cell, OnceCell, RefCell};

/// A lazily read NVML struct: read at most once per context.
type Cached<T> = OnceCell<Result<T, NvmlCode>>;

fn cached<T>(cell: &Cached<T>, read: impl FnOnce() -> Result<T, NvmlCode>) -> Result<&T, NvmlCode> {
    cell.get_or_init(read).as_ref().map_err(|c| *c)
}

/// The structs a row may need, each read at most once.
#[derive(Default)]
struct Caches {
    name: Cached<String>,
    serial: Cached<String>,
    uuid: Cached<String>,
    memory: Cached<MemInfo>,
    bar1: Cached<BAR1MemoryInfo>,
    pci: Cached<PciInfo>,
    pci_ext: Cached<nvmlPciInfoExt_t>,
    utilization: Cached<Utilization>,
    reasons_supported: Cached<u64>,
    reasons_active: Cached<u64>,
    encoder_stats: Cached<nvml_wrapper::structs::device::EncoderStats>,
    ecc_mode: Cached<(bool, bool)>,
    driver_model: Cached<(u32, u32)>,
    gom: Cached<(u32, u32)>,
    mig_mode: Cached<(u32, u32)>,
    gsp_mode: Cached<(bool, bool)>,
    dram_encryption: Cached<(u32, u32)>,
    power_constraints: Cached<(u32, u32)>,
    remapped: Cached<RemappedRows>,
    retired_single: Cached<Vec<RetiredPage>>,
    retired_double: Cached<Vec<RetiredPage>>,
    histogram: Cached<nvmlRowRemapperHistogramValues_t>,
    sram: Cached<nvmlEccSramErrorStatus_t>,
    protected_memory: Cached<nvmlMemory_t>,
    fabric: Cached<FabricInfo>,
    platform: Cached<nvmlPlatformInfo_t>,
}

/// One GPU for one sample: its handle and a cache of every NVML read, so that each
/// query is made at most once per sample however many fields read it. Errors are cached too.
pub struct GpuCtx<'s> {
    /// The NVML session the GPU was opened in.
    pub session: &'s Session,
    /// The GPU's index in NVML's enumeration.
    pub index: u32,
    /// The number of GPUs NVML reports (`count` field).
    pub count: u32,
    /// The sample's timestamp as text, formatted from `taken` when first
    /// asked for ([`GpuCtx::timestamp`]).
    timestamp: OnceCell<String>,
    /// The same moment as a clock reading.
    pub taken: std::time::SystemTime,
    /// The GPU as the raw layer takes it.
    raw: Dev<'s>,
    /// nvml-wrapper's device, for the catalogue's getters alone.
    device: Result<Device<'s>, NvmlCode>,
    caches: Caches,
    /// Field values by (field id in nvml-wrapper's numbering, scope). A row
    /// asks for a few dozen at most, so a vector beats hashing.
    field_values: RefCell<Vec<FieldValueEntry>>,
    /// Derive a unified-memory GPU's memory from the system's (nvq's own
    /// views; see [`crate::source::sysmem`]).
    derive_memory: bool,
    /// Was [`Self::memory`] derived so?
    memory_derived: Cell<bool>,
}

/// A field value read for a (field id, scope) pair.
type FieldValueEntry = ((u32, u32), Result<FieldVal, NvmlCode>);

impl<'s> GpuCtx<'s> {
    /// A context for GPU `index` of `count`, looking its handle up now; a failed lookup makes
    /// every read return its NVML code.
    pub fn new(session: &'s Session, index: u32, count: u32) -> Self {
        Self::with_handle(
            session,
            index,
            count,
            Dev::by_index(session, index).handle(),
        )
    }

    /// A context for a GPU whose handle was looked up earlier (a loop looks
    /// handles up once and reuses them in every sample).
    pub fn with_handle(
        session: &'s Session,
        index: u32,
        count: u32,
        handle: Result<nvmlDevice_t, NvmlCode>,
    ) -> Self {
        let taken = std::time::SystemTime::now();
        let raw = Dev::new(session, handle);
        GpuCtx {
            session,
            index,
            count,
            timestamp: OnceCell::new(),
            taken,
            raw,
            device: raw::wrapper(&raw),
            caches: Caches::default(),
            field_values: RefCell::new(Vec::new()),
            derive_memory: false,
            memory_derived: Cell::new(false),
        }
    }

    /// This context with a unified-memory GPU's memory derived from the
    /// system's (`/proc/meminfo`, [`crate::source::sysmem`]): what nvq's
    /// own views show, each with its mark ([`Self::memory_derived`]).
    /// nvidia-smi's views never ask for it.
    pub fn deriving_memory(mut self) -> Self {
        self.derive_memory = true;
        self
    }

    /// The sample's timestamp (`2026/12/01 23:45:00.123`), taken when the
    /// context was built; formatted once, and only for a sample that shows it.
    pub fn timestamp(&self) -> &str {
        self.timestamp
            .get_or_init(|| crate::source::time::format_timestamp(self.taken))
    }

    /// nvml-wrapper's device, or the code that getting it failed with: the
    /// catalogue's getters' alone (a view reads a fact, or through the raw
    /// layer's typed reads).
    fn dev(&self) -> Result<&Device<'s>, NvmlCode> {
        self.device.as_ref().map_err(|c| *c)
    }

    /// The raw NVML handle, or the code that looking the GPU up failed with.
    pub fn handle(&self) -> Result<nvmlDevice_t, NvmlCode> {
        self.raw.handle()
    }

    /// The device as the raw NVML layer takes it.
    pub fn raw(&self) -> Dev<'s> {
        self.raw
    }

    /// The driver's major version (0 when unknown).
    pub fn driver_major(&self) -> u32 {
        self.session.driver_major()
    }

    /// A failed cell, spelled as this driver's nvidia-smi spells it.
    pub fn err(&self, code: NvmlCode) -> Value {
        let mut v = Value::err(code);
        if let Value::Error(t) = &mut v {
            t.legacy_spelling =
                code == NvmlCode::NOT_SUPPORTED && legacy_not_supported(self.session);
        }
        v
    }

    /// Turn a getter's result into a cell.
    pub fn value<T>(&self, r: Result<T, NvmlCode>, f: impl FnOnce(T) -> Value) -> Value {
        match r {
            Ok(v) => f(v),
            Err(c) => self.err(c),
        }
    }

    /// Call a wrapper method on the device, mapping its error to a code: the
    /// catalogue's getters' alone (`source/gpu/`; `scripts/check-layers.py`
    /// fails on a use elsewhere).
    pub(in crate::source) fn call<T>(
        &self,
        f: impl FnOnce(&Device<'s>) -> Result<T, nvml_wrapper::error::NvmlError>,
    ) -> Result<T, NvmlCode> {
        let d = self.dev()?;
        f(d).map_err(NvmlCode::from)
    }

    /// Framebuffer memory: total, reserved, used and free bytes (`nvmlDeviceGetMemoryInfo_v2`, else v1).
    /// On a context [`Self::deriving_memory`], a unified-memory GPU's (NVML
    /// answers NOT_SUPPORTED or a total of 0) is the system's, when
    /// `/proc/meminfo` can be read.
    pub fn memory(&self) -> Result<&MemInfo, NvmlCode> {
        cached(&self.caches.memory, || {
            let nvml = raw::memory(&self.raw());
            if !self.derive_memory || !sysmem::is_unified(&nvml) {
                return nvml;
            }
            match sysmem::read() {
                Some(system) => {
                    self.memory_derived.set(true);
                    Ok(system.as_gpu_memory())
                }
                None => nvml,
            }
        })
    }

    /// Is [`Self::memory`] the system's memory (a unified-memory GPU, on a
    /// context [`Self::deriving_memory`])?
    pub fn memory_derived(&self) -> bool {
        let _ = self.memory();
        self.memory_derived.get()
    }

    /// The GPU's identity: its product name (`nvmlDeviceGetName`), read once
    /// for every view of the sample.
    pub fn name(&self) -> Result<&str, NvmlCode> {
        cached(&self.caches.name, || raw::name(&self.raw)).map(String::as_str)
    }

    /// The GPU's UUID, `GPU-…` (`nvmlDeviceGetUUID`).
    pub fn uuid(&self) -> Result<&str, NvmlCode> {
        cached(&self.caches.uuid, || raw::uuid(&self.raw)).map(String::as_str)
    }

    /// The board's serial number (`nvmlDeviceGetSerial`).
    pub fn serial(&self) -> Result<&str, NvmlCode> {
        cached(&self.caches.serial, || raw::serial(&self.raw)).map(String::as_str)
    }

    /// The GPU's PCI bus id, `00000000:01:00.0` (from [`Self::pci`]).
    pub fn bus_id(&self) -> Result<&str, NvmlCode> {
        self.pci().map(|p| p.bus_id.as_str())
    }

    /// BAR1's total, used and free bytes (`nvmlDeviceGetBAR1MemoryInfo`):
    /// the one read of the table's, `-q`'s and dmon's BAR1.
    pub fn bar1(&self) -> Result<&BAR1MemoryInfo, NvmlCode> {
        cached(&self.caches.bar1, || self.call(|d| d.bar1_memory_info()))
    }

    /// The GPU's PCI identity: bus id, domain, device and subsystem ids (`nvmlDeviceGetPciInfo`).
    pub fn pci(&self) -> Result<&PciInfo, NvmlCode> {
        cached(&self.caches.pci, || raw::pci_info(&self.raw))
    }

    /// The extended PCI info: base and sub class, revision (`nvmlDeviceGetPciInfoExt`).
    pub fn pci_ext(&self) -> Result<&nvmlPciInfoExt_t, NvmlCode> {
        cached(&self.caches.pci_ext, || raw::pci_info_ext(&self.raw()))
    }

    /// GPU and memory utilization in percent over NVML's last sample period (`nvmlDeviceGetUtilizationRates`).
    pub fn utilization(&self) -> Result<&Utilization, NvmlCode> {
        cached(&self.caches.utilization, || {
            self.call(|d| d.utilization_rates())
        })
    }

    /// The clock event (throttle) reasons the GPU supports, as NVML's bit mask.
    pub fn reasons_supported(&self) -> Result<u64, NvmlCode> {
        cached(&self.caches.reasons_supported, || {
            raw::event_reasons(&self.raw(), true)
        })
        .copied()
    }

    /// The clock event (throttle) reasons active now, as NVML's bit mask.
    pub fn reasons_active(&self) -> Result<u64, NvmlCode> {
        cached(&self.caches.reasons_active, || {
            raw::event_reasons(&self.raw(), false)
        })
        .copied()
    }

    /// The encoder's session count, average FPS and average latency in µs (`nvmlDeviceGetEncoderStats`).
    pub fn encoder_stats(&self) -> Result<&nvml_wrapper::structs::device::EncoderStats, NvmlCode> {
        cached(&self.caches.encoder_stats, || {
            self.call(|d| d.encoder_stats())
        })
    }

    /// ECC mode: (current, pending).
    pub fn ecc_mode(&self) -> Result<(bool, bool), NvmlCode> {
        cached(&self.caches.ecc_mode, || {
            self.call(|d| d.is_ecc_enabled())
                .map(|m| (m.currently_enabled, m.pending_enabled))
        })
        .copied()
    }

    /// Driver model as NVML numbers: (current, pending).
    pub fn driver_model(&self) -> Result<(u32, u32), NvmlCode> {
        cached(&self.caches.driver_model, || raw::driver_model(&self.raw())).copied()
    }

    /// GPU operation mode as NVML numbers: (current, pending).
    pub fn gom(&self) -> Result<(u32, u32), NvmlCode> {
        cached(&self.caches.gom, || raw::gpu_operation_mode(&self.raw())).copied()
    }

    /// MIG mode: (current, pending), 1 = enabled.
    pub fn mig_mode(&self) -> Result<(u32, u32), NvmlCode> {
        cached(&self.caches.mig_mode, || {
            self.call(|d| d.mig_mode()).map(|m| (m.current, m.pending))
        })
        .copied()
    }

    /// GSP firmware mode: (enabled, enabled by default).
    pub fn gsp_mode(&self) -> Result<(bool, bool), NvmlCode> {
        cached(&self.caches.gsp_mode, || {
            self.call(|d| d.gsp_firmware_mode())
                .map(|m| (m.enabled, m.default))
        })
        .copied()
    }

    /// DRAM encryption state: (current, pending), NVML enable states.
    pub fn dram_encryption(&self) -> Result<(u32, u32), NvmlCode> {
        cached(&self.caches.dram_encryption, || {
            raw::dram_encryption(&self.raw())
        })
        .copied()
    }

    /// Power limit constraints in milliwatts: (min, max).
    pub fn power_constraints(&self) -> Result<(u32, u32), NvmlCode> {
        cached(&self.caches.power_constraints, || {
            self.call(|d| d.power_management_limit_constraints())
                .map(|c| (c.min_limit, c.max_limit))
        })
        .copied()
    }

    /// Remapped-row counts and whether a remap is pending or failed (`nvmlDeviceGetRemappedRows`).
    pub fn remapped(&self) -> Result<&RemappedRows, NvmlCode> {
        cached(&self.caches.remapped, || raw::remapped_rows(&self.raw()))
    }

    /// The pages retired for `cause` (`nvmlDeviceGetRetiredPages`): the one
    /// read behind the retired counts and `-q`'s page lists.
    pub fn retired_pages(&self, cause: RetirementCause) -> Result<&[RetiredPage], NvmlCode> {
        let cell = match cause {
            RetirementCause::DoubleBitEccError => &self.caches.retired_double,
            RetirementCause::MultipleSingleBitEccErrors => &self.caches.retired_single,
        };
        cached(cell, || self.call(|d| d.retired_pages(cause))).map(Vec::as_slice)
    }

    /// How many memory banks have how many spare rows left (`nvmlDeviceGetRowRemapperHistogram`).
    pub fn histogram(&self) -> Result<&nvmlRowRemapperHistogramValues_t, NvmlCode> {
        cached(&self.caches.histogram, || {
            raw::row_remapper_histogram(&self.raw())
        })
    }

    /// SRAM ECC error counts by kind and unit (`nvmlDeviceGetSramEccErrorStatus`).
    pub fn sram(&self) -> Result<&nvmlEccSramErrorStatus_t, NvmlCode> {
        cached(&self.caches.sram, || raw::sram_ecc_status(&self.raw()))
    }

    /// Confidential computing's protected memory, total/used/free bytes
    /// (`nvmlDeviceGetConfComputeProtectedMemoryUsage`).
    pub fn protected_memory(&self) -> Result<&nvmlMemory_t, NvmlCode> {
        cached(&self.caches.protected_memory, || {
            raw::protected_memory(&self.raw())
        })
    }

    /// The GPU's NVLink fabric state: cluster UUID, clique id, status
    /// (`nvmlDeviceGetGpuFabricInfoV`, else the older call).
    pub fn fabric(&self) -> Result<&FabricInfo, NvmlCode> {
        cached(&self.caches.fabric, || raw::fabric_info(&self.raw()))
    }

    /// Where the GPU sits in its platform: chassis, slot, tray, host ids (`nvmlDeviceGetPlatformInfo`).
    pub fn platform(&self) -> Result<&nvmlPlatformInfo_t, NvmlCode> {
        cached(&self.caches.platform, || raw::platform_info(&self.raw()))
    }

    /// Read these field values in one `nvmlDeviceGetFieldValues` call and
    /// keep them for [`Self::field_value`]. Ids use nvml-wrapper's numbering
    /// (translated for the driver here).
    pub fn prefetch_field_values(&self, wanted: &[(u32, u32)]) {
        let mut todo: Vec<(u32, u32)> = Vec::new();
        {
            let have = self.field_values.borrow();
            for w in wanted {
                if !have.iter().any(|(k, _)| k == w) && !todo.contains(w) {
                    todo.push(*w);
                }
            }
        }
        if todo.is_empty() {
            return;
        }
        let got = raw::field_values(&self.raw(), &todo);
        let mut have = self.field_values.borrow_mut();
        have.extend(todo.into_iter().zip(got));
    }

    /// One field value (read on its own when it was not prefetched).
    pub fn field_value(&self, id: u32, scope: u32) -> Result<FieldVal, NvmlCode> {
        self.prefetch_field_values(&[(id, scope)]);
        self.field_values
            .borrow()
            .iter()
            .find(|(k, _)| *k == (id, scope))
            .map_or(Err(NvmlCode::UNKNOWN), |(_, v)| *v)
    }
}

/// Drivers before the 450 branch printed NOT_SUPPORTED as `[Not Supported]`;
/// 465.27 (2021) already prints `[N/A]`, 410.78 (2019) still the old form.
pub const NA_SPELLING_CHANGED_IN: u32 = 450;

fn legacy_not_supported(session: &Session) -> bool {
    let major = session.driver_major();
    major > 0 && major < NA_SPELLING_CHANGED_IN
}
