//! `nvq serve`'s history (nvq profile): every fresh read of a GPU's memory used and total goes into a bounded
//! `model::history` (the loops' history: [`History::DEFAULT_CAP`] points per GPU), and each exposition gets the
//! memory's growth rate and time to full (`render::trend_metrics`), with the trend settings of the loops
//! (`--trend-window`, `--rising-for`, `--min-rise`).

use nvq_core::model::history::{History, Point, SeriesKey};
use nvq_core::model::trend::{self, TrendConfig};
use nvq_core::model::{Fact, GpuIdent, Row};
use nvq_core::source::QueryMode;
use std::sync::Arc;

/// The series whose trend is exposed.
const USED: Fact = Fact::MemoryUsed;

/// The history of the collection's memory series.
pub struct ServeTrend {
    /// In the `--query-gpu` rows: memory.used's and memory.total's cells, each with its unit's base value.
    used: (usize, f64),
    total: Option<(usize, f64)>,
    history: History,
    trend: TrendConfig,
    /// The GPUs seen, by UUID: each with its series key, made once.
    keys: Vec<SeriesKey>,
}

impl ServeTrend {
    /// For rows of `fields` (`--query-gpu` indices); `None` when memory.used is not among them.
    pub fn new(fields: &[usize], trend: TrendConfig) -> Option<Self> {
        let find = |fact: Fact| {
            let want = QueryMode::GPU.position(fact)?;
            let k = fields.iter().position(|&f| f == want)?;
            Some((k, fact.info().measure().1))
        };
        let used = find(USED)?;
        let mut history = History::default();
        // Each scrape reads each GPU's trend of it.
        history.keep_minima_of(USED);
        Some(ServeTrend {
            used,
            total: find(Fact::MemoryTotal),
            history,
            trend,
            keys: Vec::new(),
        })
    }

    /// Add the rows' fresh values (a GPU read again since is newer; a read already seen, or a late GPU's row,
    /// adds nothing), then the exposition of each GPU's trend.
    pub fn observe(&mut self, rows: &[Row]) -> Vec<u8> {
        let mut trends: Vec<(Arc<GpuIdent>, trend::Trend)> = Vec::with_capacity(rows.len());
        for row in rows {
            let (Some(g), Some(t)) = (&row.gpu, row.time) else {
                continue;
            };
            if g.uuid.is_empty() {
                continue;
            }
            let t = t
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(f64::NAN, |d| d.as_secs_f64());
            let key = match self.keys.iter().position(|k| k.gpu_uuid() == g.uuid) {
                Some(i) => i,
                None => {
                    self.keys.push(SeriesKey::Gpu {
                        uuid: g.uuid.clone(),
                    });
                    self.keys.len() - 1
                }
            };
            let key = &self.keys[key];
            let value = |(k, scale): (usize, f64)| {
                row.cells.get(k).and_then(|c| c.as_f64()).map(|v| v * scale)
            };
            let newer = self
                .history
                .series(key, USED)
                .and_then(|s| s.last())
                .map_or(true, |p| t > p.t);
            if newer {
                if let Some(v) = value(self.used) {
                    self.history.push(key, USED, Point { t, v });
                }
            }
            let capacity = self.total.and_then(value);
            if let Some(tr) = self
                .history
                .series(key, USED)
                .and_then(|s| trend::trend(s, capacity, &self.trend))
            {
                trends.push((Arc::clone(g), tr));
            }
        }
        let refs: Vec<(&GpuIdent, trend::Trend)> =
            trends.iter().map(|(g, t)| (g.as_ref(), *t)).collect();
        nvq_core::render::trend_metrics::render(&refs)
    }
}
