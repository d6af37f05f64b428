//! What `nvq top` keeps of its samples: the history of each GPU's memory
//! and utilization and of each process's memory, and the marks worked out
//! from it (the processes whose memory rises steadily, the GPUs' time to
//! full memory).

use crate::tui::columns::Leak;
use crate::tui::view::{FullMap, LeakMap, MEM_FIELD, PROC_MEM_FIELD, UTIL_FIELD};
use nvq_core::model::history::{History, Point, SeriesRef};
use nvq_core::model::top::{Health, ProcSnap, TopSample};
use nvq_core::model::trend::{rising_trend, TrendConfig};
use std::collections::HashMap;
use std::sync::Arc;

/// Points kept per series: ten minutes at the fastest refresh (100 ms),
/// 100 minutes at the default one.
pub const HISTORY_CAP: usize = 6000;

/// A series not updated for this long (a process that exited) is dropped.
const FORGET_AFTER_S: f64 = 3600.0;

/// Add a sample's values to the history.
pub(super) fn record(history: &mut History, s: &TopSample) {
    for g in s.gpus.iter().filter(|g| g.health == Health::Fresh) {
        let points = [
            g.mem_used.map(|v| (MEM_FIELD, v as f64)),
            g.util_gpu.map(|v| (UTIL_FIELD, v)),
        ];
        history.push_row(
            SeriesRef::Gpu {
                uuid: &g.series_id(),
            },
            points
                .into_iter()
                .flatten()
                .map(|(f, v)| (f, Point { t: s.t, v })),
        );
    }
    for p in &s.procs {
        if let Some(v) = p.gpu_mem {
            history.push(
                proc_key(p, &p.gpu_series_id()),
                PROC_MEM_FIELD,
                Point {
                    t: s.t,
                    v: v as f64,
                },
            );
        }
    }
    history.forget_older_than(s.t - FORGET_AFTER_S);
}

/// A process's series, on its GPU's series id `gpu`.
fn proc_key<'a>(p: &ProcSnap, gpu: &'a str) -> SeriesRef<'a> {
    SeriesRef::Process {
        gpu_uuid: gpu,
        pid: p.pid,
        start: p.start,
    }
}

/// The processes whose memory rises steadily, and the GPUs whose memory
/// does, with their time to full.
pub(super) fn leaks(history: &History, s: &TopSample, cfg: &TrendConfig) -> (LeakMap, FullMap) {
    let mut procs = HashMap::new();
    let mut gpus = HashMap::new();
    let free: HashMap<(&str, u32), f64> = s
        .gpus
        .iter()
        .filter_map(|g| {
            Some((
                (&*g.host, g.index),
                g.mem_total? as f64 - g.mem_used? as f64,
            ))
        })
        .collect();
    for g in &s.gpus {
        let cap = g.mem_total.map(|t| t as f64);
        let series = history.series(
            SeriesRef::Gpu {
                uuid: &g.series_id(),
            },
            MEM_FIELD,
        );
        if let Some(full) = series
            .and_then(|x| rising_trend(x, cap, cfg))
            .and_then(|t| t.time_to_full_s)
        {
            gpus.insert((Arc::clone(&g.host), g.index), full);
        }
    }
    for p in &s.procs {
        let Some(t) = history
            .series(proc_key(p, &p.gpu_series_id()), PROC_MEM_FIELD)
            .and_then(|x| rising_trend(x, None, cfg))
        else {
            continue;
        };
        if t.slope_per_s > 0.0 {
            let gpu_full_s = free
                .get(&(&*p.host, p.gpu))
                .map(|f| f.max(0.0) / t.slope_per_s);
            procs.insert(
                (Arc::clone(&p.host), p.gpu, p.pid),
                Leak {
                    rate: t.slope_per_s,
                    gpu_full_s,
                },
            );
        }
    }
    (procs, gpus)
}
