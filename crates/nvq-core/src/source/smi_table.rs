//! Reading plain `nvq` / `nvidia-smi`'s table: [`collect`] reads everything
//! the table shows into a [`SmiTable`] (one NVML call per NVML struct and
//! GPU); `render::smi_table` turns it into text. Every reading keeps its NVML result, so the renderer can print
//! `N/A` (or `Not Supported`) exactly where nvidia-smi does.

use super::gpu::{get, GpuCtx};
use crate::model::smi_table::*;
use crate::nvml::raw::{self, ProcessList};
use crate::nvml::{NvmlCode, Session};
use nvml_wrapper::enum_wrappers::device::{EccCounter, MemoryError};
use std::time::SystemTime;

/// Read everything the table needs for the GPUs `devices`, in turn.
pub fn collect(session: &Session, devices: &[u32]) -> SmiTable {
    let parts = (0..Part::count(devices.len()))
        .map(|i| Part::read(session, devices, i))
        .collect();
    assemble(session, parts)
}

/// One part of the table, read on its own (a loop reads each part under
/// the sample's deadline): part `i < devices.len()` is GPU `devices[i]`
/// (its box, MIG devices and processes), the last one the CUDA version.
#[derive(Debug, Clone)]
pub enum Part {
    /// A GPU's part: its box, its MIG devices and its processes.
    Gpu {
        /// What the GPU's box shows.
        gpu: Box<TableGpu>,
        /// One entry per MIG device (empty when MIG is off).
        mig: Vec<TableMig>,
        /// The GPU's processes, for the processes table.
        processes: Vec<TableProcess>,
    },
    /// The last part: the driver's CUDA version (`nvmlSystemGetCudaDriverVersion`), or why not read.
    Cuda(Reading<i32>),
}

impl Part {
    /// How many parts a table of `gpus` GPUs has.
    pub fn count(gpus: usize) -> usize {
        gpus + 1
    }

    /// Read part `i`.
    pub fn read(session: &Session, devices: &[u32], i: usize) -> Part {
        let Some(&index) = devices.get(i) else {
            return Part::Cuda(raw::cuda_driver_version(session));
        };
        // The GPU count is no cell of the table.
        let c = GpuCtx::new(session, index, 0);
        if let Err(code) = c.handle() {
            return Part::unavailable(index, code);
        }
        let device = c.raw();
        let gpu = gpu_summary(&c);
        let mig = if gpu.mig_mode == Ok(true) {
            mig_summaries(&device, index)
        } else {
            Vec::new()
        };
        let mut processes = process_summaries(&device, index);
        // A MIG GPU's processes go by GPU instance, then compute instance
        // (nvidia-smi's table); outside MIG the ids are all unset.
        processes.sort_by_key(|p| (p.gpu_instance, p.compute_instance, p.pid));
        Part::Gpu {
            gpu: Box::new(gpu),
            mig,
            processes,
        }
    }

    /// Part `i` when it missed the sample's deadline: NVML's TIMEOUT in
    /// every reading (the box shows `N/A`), no MIG devices or processes.
    pub fn late(devices: &[u32], i: usize) -> Part {
        match devices.get(i) {
            Some(&index) => Part::unavailable(index, NvmlCode::TIMEOUT),
            None => Part::Cuda(Err(NvmlCode::TIMEOUT)),
        }
    }

    fn unavailable(index: u32, c: NvmlCode) -> Part {
        Part::Gpu {
            gpu: Box::new(TableGpu::unavailable(index, c)),
            mig: Vec::new(),
            processes: Vec::new(),
        }
    }
}

/// The table from its parts (GPUs in order, then the CUDA version).
pub fn assemble(session: &Session, parts: Vec<Part>) -> SmiTable {
    let mut cuda_version = Err(NvmlCode::UNKNOWN);
    let mut gpus = Vec::with_capacity(parts.len());
    let mut mig_devices = Vec::new();
    let mut processes = Vec::new();
    for part in parts {
        match part {
            Part::Gpu {
                gpu,
                mig,
                processes: p,
            } => {
                gpus.push(*gpu);
                mig_devices.extend(mig);
                processes.extend(p);
            }
            Part::Cuda(c) => cuda_version = c,
        }
    }
    SmiTable {
        date: date_line(SystemTime::now()),
        driver_version: session.driver_version().map(str::to_string),
        cuda_version,
        gpus,
        mig_devices,
        processes,
    }
}

/// A GPU's box, read through the sample's GPU context: each NVML struct
/// once, with the same call (and fallback) as `--query-gpu`'s getters.
fn gpu_summary(c: &GpuCtx<'_>) -> TableGpu {
    let mig = c.mig_mode();
    let mig_mode = mig.map(|(current, _)| current == 1);
    let mig_pending = mig.ok().map(|(_, pending)| pending == 1);
    // In MIG mode the cell says `On`: each MIG device counts its own errors
    // (the 590 tables of H100 and H200 in MIG mode; `--query-gpu` still
    // prints the GPU's counter).
    let ecc = match c.ecc_mode() {
        Err(_) => Ecc::NotAvailable,
        Ok((false, _)) => Ecc::Disabled,
        Ok(_) if mig_mode == Ok(true) => Ecc::Enabled(None),
        Ok(_) => Ecc::Enabled(
            get::read_ecc_total(c, MemoryError::Uncorrected, EccCounter::Volatile).ok(),
        ),
    };
    let compute_mode = get::read_compute_mode(c).and_then(|m| match m {
        0 => Ok(ComputeMode::Default),
        1 => Ok(ComputeMode::ExclusiveThread),
        2 => Ok(ComputeMode::Prohibited),
        3 => Ok(ComputeMode::ExclusiveProcess),
        other => Err(NvmlCode(other)),
    });
    TableGpu {
        index: c.index,
        name: c.name().map(str::to_string),
        persistence_mode: get::read_persistence_mode(c),
        driver_model: driver_model(c),
        bus_id: c.bus_id().map(str::to_string),
        display_active: get::read_display_active(c),
        ecc,
        // The unversioned call, as `--query-gpu`'s fan.speed (`raw::fan_speed`).
        fan: raw::fan_speed(&c.raw()),
        temperature: get::read_temperature_gpu(c),
        // NVML's unknown state (32) is UNKNOWN; any other number beyond
        // P15 is its own code, as nvml-wrapper reported it.
        performance_state: get::read_pstate(c).and_then(|p| match p {
            0..=15 => Ok(p),
            32 => Err(NvmlCode::UNKNOWN),
            other => Err(NvmlCode(other)),
        }),
        power_draw: get::read_power_draw(c),
        power_limit: get::read_power_limit(c),
        // nvmlDeviceGetMemoryInfo_v2 (v1 on drivers without it), as
        // `memory.used` and `memory.total` read it.
        memory: c.memory().map(|m| MemoryUse {
            used: m.used,
            total: m.total,
        }),
        gpu_util: c.utilization().map(|u| u.gpu),
        compute_mode,
        mig_mode,
        mig_pending,
    }
}

/// The Windows driver model: NVML's numbers, as the wrapper's enum lacks MCDM.
fn driver_model(c: &GpuCtx<'_>) -> Reading<DriverModel> {
    let (current, _pending) = c.driver_model()?;
    match current {
        0 => Ok(DriverModel::Wddm),
        1 => Ok(DriverModel::Tcc),
        2 => Ok(DriverModel::Mcdm),
        _ => Err(NvmlCode::UNKNOWN),
    }
}

fn mig_summaries(parent: &raw::Dev<'_>, gpu: u32) -> Vec<TableMig> {
    let mut out = Vec::new();
    for m in raw::mig_devices(parent) {
        let r = raw::mig_device(&m);
        out.push(TableMig {
            gpu,
            gpu_instance: r.gpu_instance,
            compute_instance: r.compute_instance,
            index: out.len() as u32,
            memory: r.memory.map(|x| MemoryUse {
                used: x.used,
                total: x.total,
            }),
            bar1: r.bar1.map(|x| MemoryUse {
                used: x.used,
                total: x.total,
            }),
            attributes: r.attributes.map(|a| MigAttributes {
                multiprocessors: a.multiprocessor_count,
                copy_engines: a.shared_copy_engine_count,
                encoders: a.shared_encoder_count,
                decoders: a.shared_decoder_count,
                ofas: a.shared_ofa_count,
                jpegs: a.shared_jpeg_count,
            }),
            ecc: r.sram_uncorrected,
        });
    }
    out
}

/// A GPU's processes, merged over its compute, graphics and MPS lists,
/// sorted by PID.
pub fn process_summaries(d: &raw::Dev<'_>, gpu: u32) -> Vec<TableProcess> {
    let mut rows: Vec<TableProcess> = Vec::new();
    // A list the GPU cannot give (NOT_SUPPORTED, a lost GPU) shows no
    // processes, as nvidia-smi's table does.
    for which in [
        ProcessList::Compute,
        ProcessList::Graphics,
        ProcessList::MpsCompute,
    ] {
        for p in raw::processes(d, which).unwrap_or_default() {
            let used = p.used_memory;
            let row = match rows.iter_mut().find(|r| {
                r.pid == p.pid
                    && r.gpu_instance == p.gpu_instance_id
                    && r.compute_instance == p.compute_instance_id
            }) {
                Some(r) => r,
                None => {
                    rows.push(TableProcess {
                        gpu,
                        gpu_instance: p.gpu_instance_id,
                        compute_instance: p.compute_instance_id,
                        pid: p.pid,
                        kind: ProcessKind::default(),
                        name: Err(NvmlCode::NOT_FOUND),
                        used_memory: used,
                    });
                    let last = rows.len() - 1;
                    &mut rows[last]
                }
            };
            match which {
                ProcessList::Compute => row.kind.compute = true,
                ProcessList::Graphics => row.kind.graphics = true,
                ProcessList::MpsCompute => row.kind.mps = true,
            }
            if row.used_memory.is_none() {
                row.used_memory = used;
            }
        }
    }
    for r in &mut rows {
        r.name = raw::process_name(d.session, r.pid);
    }
    rows.sort_by_key(|r| (r.pid, r.gpu_instance, r.compute_instance));
    rows
}

/// The first line of the table: `Fri Jul  3 22:11:09 2026` in local time,
/// followed by the seven spaces nvidia-smi prints after it.
pub fn date_line(t: SystemTime) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let Some(z) = super::time::local(t) else {
        return "Thu Jan  1 00:00:00 1970       ".to_string();
    };
    let day = DAYS
        .get(usize::from(
            z.weekday().to_sunday_zero_offset().unsigned_abs(),
        ))
        .copied()
        .unwrap_or("???");
    let month = MONTHS
        .get(usize::from(z.month().unsigned_abs()).wrapping_sub(1))
        .copied()
        .unwrap_or("???");
    format!(
        "{day} {month} {:>2} {:02}:{:02}:{:02} {}       ",
        z.day(),
        z.hour(),
        z.minute(),
        z.second(),
        z.year()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_line_shape() {
        let s = date_line(SystemTime::now());
        assert_eq!(s.len(), 31, "{s:?}");
        assert!(s.ends_with("       "));
        let b = s.as_bytes();
        assert_eq!(
            (b[3], b[7], b[10], b[13], b[16], b[19]),
            (b' ', b' ', b' ', b':', b':', b' ')
        );
    }
}
