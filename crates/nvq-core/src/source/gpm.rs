//! GPM (NVML's GPU performance monitoring, Hopper and later): metrics need
//! two samples, so a [`GpmReader`] keeps each GPU's (and each MIG GPU
//! instance's) previous sample and gives the metrics over the time since
//! it. The first read of a GPU or instance only takes its first sample.

use super::gpu::GpuCtx;
use super::listing::mig_profile;
use crate::model::gpm::{GpuExtra, InstanceRead, MigDeviceRead};
use crate::model::{Fact, NvmlCode, Value};
use crate::nvml::raw::{self, Dev, GpmSample};
use crate::nvml::Session;
use std::collections::HashMap;
use std::sync::Arc;

/// The previous sample and a spare buffer for the next one.
struct Pair {
    last: GpmSample,
    spare: GpmSample,
}

/// One GPU's GPM state, kept across samples.
#[derive(Default)]
pub struct GpmReader {
    /// `None` until NVML answered; `Some(false)` for a GPU without GPM.
    supported: Option<bool>,
    gpu: Option<Pair>,
    /// Per MIG GPU instance id.
    instances: HashMap<u32, Pair>,
}

/// Take a sample into a fresh buffer, or into `pair`'s spare one, and give
/// the metrics since `pair`'s last sample. `None` on the first sample or
/// when the sample fails.
fn step(
    session: &Arc<Session>,
    pair: &mut Option<Pair>,
    ids: &[u32],
    mut take: impl FnMut(&mut GpmSample) -> Result<(), NvmlCode>,
) -> Option<Vec<Result<f64, NvmlCode>>> {
    match pair {
        Some(p) => {
            take(&mut p.spare).ok()?;
            let got = raw::gpm_metrics(&p.last, &p.spare, ids).ok();
            std::mem::swap(&mut p.last, &mut p.spare);
            got
        }
        None => {
            let mut last = GpmSample::alloc(session).ok()?;
            take(&mut last).ok()?;
            let spare = GpmSample::alloc(session).ok()?;
            *pair = Some(Pair { last, spare });
            None
        }
    }
}

/// The metrics NVML gave, by id (those it could not give are left out).
fn values(ids: &[u32], got: Option<Vec<Result<f64, NvmlCode>>>) -> Vec<(u32, f64)> {
    got.map(|v| {
        ids.iter()
            .zip(v)
            .filter_map(|(id, r)| r.ok().filter(|x| x.is_finite()).map(|x| (*id, x)))
            .collect()
    })
    .unwrap_or_default()
}

impl GpmReader {
    /// Whether the GPU has GPM (asked until NVML answers).
    pub fn supported(&mut self, dev: &Dev<'_>) -> bool {
        if let Some(s) = self.supported {
            return s;
        }
        match raw::gpm_supported(dev) {
            Ok(s) => {
                self.supported = Some(s);
                s
            }
            // A failed call (a GPU hung or lost for now) is asked again.
            Err(_) => false,
        }
    }

    /// The GPU's metrics `ids` since the previous call (empty on the first
    /// call, without GPM, or when NVML fails).
    pub fn read(&mut self, session: &Arc<Session>, dev: &Dev<'_>, ids: &[u32]) -> Vec<(u32, f64)> {
        if ids.is_empty() || !self.supported(dev) {
            return Vec::new();
        }
        values(ids, step(session, &mut self.gpu, ids, |s| s.read(dev)))
    }

    /// The same for the GPU's MIG GPU instance `gi`.
    pub fn read_mig(
        &mut self,
        session: &Arc<Session>,
        dev: &Dev<'_>,
        gi: u32,
        ids: &[u32],
    ) -> Vec<(u32, f64)> {
        if ids.is_empty() || !self.supported(dev) {
            return Vec::new();
        }
        let mut pair = self.instances.remove(&gi);
        let got = step(session, &mut pair, ids, |s| s.read_mig(dev, gi));
        if let Some(p) = pair {
            self.instances.insert(gi, p);
        }
        values(ids, got)
    }
}

/// A fact's integer, if it read one.
fn int(v: Value) -> Option<i64> {
    match v {
        Value::Int(n) => Some(n),
        _ => None,
    }
}

/// What the dcgm and nvidia_gpu_exporter profiles read of one GPU beside
/// its fields: the minor number, the GPM metrics `ids` (of the GPU itself
/// only when `own`), and, in MIG mode, each GPU instance's memory, GPM
/// metrics and MIG devices.
pub fn extra(
    reader: &mut GpmReader,
    session: &Arc<Session>,
    c: &GpuCtx<'_>,
    ids: &[u32],
    own: bool,
) -> GpuExtra {
    if c.handle().is_err() {
        return GpuExtra::default();
    }
    let dev = &c.raw();
    let mut out = GpuExtra {
        minor: int(c.fact(Fact::MinorNumber)).and_then(|n| u32::try_from(n).ok()),
        gpm: if own {
            reader.read(session, dev, ids)
        } else {
            Vec::new()
        },
        instances: Vec::new(),
        pcie_replays: int(c.fact(Fact::PcieReplayCounter)).and_then(|n| u64::try_from(n).ok()),
        pcie_kb_per_s: None,
    };
    for (gi, m) in gpu_instances(c) {
        let memory = raw::mig_memory(&m).ok();
        out.instances.push(InstanceRead {
            gpu_instance_id: gi,
            profile: raw::name(&m)
                .map(|n| mig_profile(&n).trim().to_string())
                .unwrap_or_default(),
            fb_used_bytes: memory.as_ref().map(|x| x.used),
            fb_free_bytes: memory.as_ref().map(|x| x.free),
            fb_total_bytes: memory.as_ref().map(|x| x.total),
            fb_reserved_bytes: memory.as_ref().map(|x| x.reserved),
            gpm: reader.read_mig(session, dev, gi, ids),
            devices: Vec::new(),
        });
    }
    if !out.instances.is_empty() {
        for m in raw::mig_devices(dev) {
            let Ok(gi) = raw::gpu_instance_id(&m) else {
                continue;
            };
            if let Some(i) = out.instances.iter_mut().find(|i| i.gpu_instance_id == gi) {
                i.devices.push(MigDeviceRead {
                    uuid: raw::uuid(&m).unwrap_or_default(),
                    compute_instance_id: raw::compute_instance_id(&m).ok(),
                });
            }
        }
    }
    out
}

/// The GPU instances of GPU `c` when MIG is on (none when it is off), each
/// once with its first MIG device: several compute instances, each a MIG
/// device, share one GPU instance.
pub fn gpu_instances<'s>(c: &GpuCtx<'s>) -> Vec<(u32, Dev<'s>)> {
    if !c.mig_mode().is_ok_and(|(current, _)| current == 1) {
        return Vec::new();
    }
    let mut out: Vec<(u32, Dev<'s>)> = Vec::new();
    for m in raw::mig_devices(&c.raw()) {
        let Ok(gi) = raw::gpu_instance_id(&m) else {
            continue;
        };
        if out.iter().all(|(seen, _)| *seen != gi) {
            out.push((gi, m));
        }
    }
    out
}
