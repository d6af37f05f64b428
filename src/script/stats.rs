//! `--summary`: each GPU's minimum, maximum and mean of every queried
//! column over the samples of a run, as a pure fold over the rows printed.
//!
//! The summary is a table of its own, printed after the samples: the
//! columns `gpu` (NVML index) and `statistic` (`min`, `max`, `mean`), then
//! the queried columns. Each GPU gets three rows, in GPU order.
//! - A numeric column's `min`/`max` are the cells as they were printed (so
//!   they keep their unit and format); `mean` has two decimals (or the
//!   field's own, if more).
//! - A text column (`name`, `uuid`, `timestamp`, `pstate`) shows its
//!   lowest and highest text in the `min`/`max` rows (for `timestamp`: the
//!   first and last sample), and in `mean` its value if it never changed,
//!   else `N/A`.
//! - Unavailable cells are skipped; a column that never had a value shows
//!   its last token (`[N/A]`).
//! - A key column (the GPU's `index`, a `pid`, the GPU count: kinds
//!   `GpuIndex`, `RowLabel`, `GpuCount`) is not a statistic: the three rows
//!   show its value.

use super::eval::cell_number;
use nvq_core::model::Value;
use nvq_core::model::{Column, Row};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default)]
struct Acc {
    min: Option<(f64, Value)>,
    max: Option<(f64, Value)>,
    sum: f64,
    n: u64,
    decimals: u8,
    text_min: Option<String>,
    text_max: Option<String>,
    text_changed: bool,
    last_unavailable: Option<Value>,
    /// A key column: its last value, shown as it is.
    key: Option<Value>,
    /// The last text cell and the number it reads as: text cells (a name, a P-state) seldom change.
    text_number: Option<(String, Option<f64>)>,
    /// The last numeric cell and its number: most columns (a total, a limit, a clock) repeat from one sample to
    /// the next, and a repeated number moves neither the minimum nor the maximum.
    last_number: Option<(Value, f64)>,
}

impl Acc {
    fn add(&mut self, v: &Value, key: bool) {
        if key {
            self.key = Some(v.clone());
            return;
        }
        let number = match (v, &self.text_number) {
            // The text of the sample before, already counted: a text that is no number changes nothing again.
            (Value::Text(s), Some((t, None))) if t == s => return,
            (Value::Text(s), Some((t, x))) if t == s => *x,
            (Value::Text(s), _) => {
                let x = cell_number(v);
                self.text_number = Some((s.clone(), x));
                x
            }
            _ => match &self.last_number {
                Some((last, x)) if last == v => {
                    // The number of the sample before: it is neither a new minimum nor a new maximum.
                    self.sum += *x;
                    self.n += 1;
                    return;
                }
                _ => {
                    let x = cell_number(v);
                    if let Some(x) = x {
                        self.last_number = Some((v.clone(), x));
                    }
                    x
                }
            },
        };
        if let Some(x) = number {
            if self.min.as_ref().map_or(true, |(m, _)| x < *m) {
                self.min = Some((x, v.clone()));
            }
            if self.max.as_ref().map_or(true, |(m, _)| x > *m) {
                self.max = Some((x, v.clone()));
            }
            if let Value::Float { decimals, .. } = v {
                self.decimals = self.decimals.max(*decimals);
            }
            self.sum += x;
            self.n += 1;
        } else if let Value::Text(s) = v {
            if self.text_min.as_ref().is_some_and(|m| m != s) {
                self.text_changed = true;
            }
            if self.text_min.as_ref().map_or(true, |m| s < m) {
                self.text_min = Some(s.clone());
            }
            if self.text_max.as_ref().map_or(true, |m| s > m) {
                self.text_max = Some(s.clone());
            }
        } else {
            self.last_unavailable = Some(v.clone());
        }
    }

    fn stat(&self, which: Stat) -> Value {
        if let Some(k) = &self.key {
            return k.clone();
        }
        if let (Some((_, lo)), Some((_, hi))) = (&self.min, &self.max) {
            return match which {
                Stat::Min => lo.clone(),
                Stat::Max => hi.clone(),
                Stat::Mean => Value::Float {
                    value: self.sum / self.n.max(1) as f64,
                    decimals: self.decimals.max(2),
                },
            };
        }
        if let (Some(lo), Some(hi)) = (&self.text_min, &self.text_max) {
            return match which {
                Stat::Min => Value::text(lo.clone()),
                Stat::Max => Value::text(hi.clone()),
                Stat::Mean if !self.text_changed => Value::text(lo.clone()),
                Stat::Mean => Value::NotAvailable,
            };
        }
        self.last_unavailable.clone().unwrap_or(Value::NotAvailable)
    }
}

#[derive(Debug, Clone, Copy)]
enum Stat {
    Min,
    Max,
    Mean,
}

/// The running statistics of a run, per GPU (and process, for `pmon`) and
/// column.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    gpus: BTreeMap<(u32, u32), Vec<Acc>>,
    samples: u64,
    /// Which columns are keys (see the module's text).
    keys: Vec<bool>,
}

impl Stats {
    pub fn new() -> Self {
        Self::default()
    }

    /// Statistics whose columns `keys[k]` are keys, shown, not summarised.
    pub fn with_keys(keys: Vec<bool>) -> Self {
        Stats {
            keys,
            ..Self::default()
        }
    }

    /// Count one sample (for messages).
    pub fn sample_done(&mut self) {
        self.samples += 1;
    }

    /// The number of samples counted with [`Self::sample_done`].
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Add one printed row of GPU `gpu`.
    pub fn add(&mut self, gpu: u32, cells: &[Value]) {
        self.add_keyed(gpu, 0, cells);
    }

    /// Add one printed row of GPU `gpu` that belongs to `sub` (a PID):
    /// each (GPU, sub) pair gets its own statistics.
    pub fn add_keyed(&mut self, gpu: u32, sub: u32, cells: &[Value]) {
        let accs = self.gpus.entry((gpu, sub)).or_default();
        if accs.len() < cells.len() {
            accs.resize(cells.len(), Acc::default());
        }
        for (k, (acc, v)) in accs.iter_mut().zip(cells).enumerate() {
            acc.add(v, self.keys.get(k).copied().unwrap_or(false));
        }
    }

    /// The summary table's columns: `gpu`, `statistic`, then `columns`.
    pub fn columns(columns: &[Column]) -> Vec<Column> {
        let plain = |name, help| Column::plain(name, None, help);
        let mut out = vec![
            plain("gpu", "The GPU's NVML index."),
            plain("statistic", "min, max or mean over the run."),
        ];
        out.extend_from_slice(columns);
        out
    }

    /// The summary table's rows: `min`, `max`, `mean` for each GPU.
    pub fn rows(&self) -> Vec<Row> {
        self.rows_with(&|_, _| Vec::new())
    }

    /// [`Self::rows`], each GPU's (and sub's) three followed by the rows `extra` gives for it.
    pub fn rows_with(&self, extra: &dyn Fn(u32, u32) -> Vec<Row>) -> Vec<Row> {
        let mut out = Vec::with_capacity(self.gpus.len() * 3);
        for ((gpu, sub), accs) in &self.gpus {
            for (stat, name) in [(Stat::Min, "min"), (Stat::Max, "max"), (Stat::Mean, "mean")] {
                let mut cells = vec![Value::Int(i64::from(*gpu)), Value::text(name)];
                cells.extend(accs.iter().map(|a| a.stat(stat)));
                out.push(Row::new(cells));
            }
            // The key columns (index, PID) of the extra rows show the keys, as the others do.
            for mut row in extra(*gpu, *sub) {
                for (k, acc) in accs.iter().enumerate() {
                    if let (Some(v), Some(c)) = (&acc.key, row.cells.get_mut(2 + k)) {
                        *c = v.clone();
                    }
                }
                out.push(row);
            }
        }
        out
    }
}

/// The summary of a whole run given as `(gpu, cells)` rows: a pure
/// function of the samples.
pub fn summarize<'a>(rows: impl IntoIterator<Item = (u32, &'a [Value])>) -> Vec<Row> {
    let mut s = Stats::new();
    for (gpu, cells) in rows {
        s.add(gpu, cells);
    }
    s.rows()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvq_core::model::NvmlCode;

    fn csv(rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|r| {
                r.cells
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .collect()
    }

    #[test]
    fn min_max_mean_per_gpu() {
        const MIB: u64 = 1 << 20;
        let samples: Vec<(u32, Vec<Value>)> = vec![
            (
                0,
                vec![Value::Bytes(10 * MIB), Value::text("P0"), Value::Int(50)],
            ),
            (
                1,
                vec![
                    Value::Bytes(MIB),
                    Value::text("P8"),
                    Value::err(NvmlCode::NOT_SUPPORTED),
                ],
            ),
            (
                0,
                vec![Value::Bytes(30 * MIB), Value::text("P0"), Value::Int(70)],
            ),
            (
                1,
                vec![
                    Value::Bytes(MIB),
                    Value::text("P2"),
                    Value::err(NvmlCode::NOT_SUPPORTED),
                ],
            ),
            (
                0,
                vec![
                    Value::Bytes(20 * MIB),
                    Value::text("P0"),
                    Value::NotAvailable,
                ],
            ),
        ];
        let rows = summarize(samples.iter().map(|(g, c)| (*g, c.as_slice())));
        assert_eq!(
            csv(&rows),
            vec![
                "0, min, 10, P0, 50",
                "0, max, 30, P0, 70",
                "0, mean, 20.00, P0, 60.00",
                "1, min, 1, P2, [N/A]",
                "1, max, 1, P8, [N/A]",
                "1, mean, 1.00, N/A, [N/A]",
            ]
        );
    }

    /// A cell repeated from the sample before counts each time it comes (the mean), and a text or number that
    /// comes back after another still moves the minimum, maximum and "changed" as the first time.
    #[test]
    fn repeated_cells_count_every_time_and_returning_ones_still_count() {
        let int = |v| Value::Int(v);
        let na = Value::NotAvailable;
        let t = Value::text;
        let samples: Vec<Vec<Value>> = vec![
            vec![int(5), t("P0"), t("12"), t("A")],
            vec![int(5), t("P0"), t("12"), t("A")],
            vec![int(3), t("P2"), t("x"), t("A")],
            vec![int(3), t("P2"), t("x"), t("A")],
            vec![int(9), t("P0"), t("7"), t("A")],
            vec![int(9), t("P0"), t("7"), t("A")],
            vec![na.clone(), t("P0"), t("12"), t("A")],
            vec![int(9), t("P0"), t("x"), t("A")],
            vec![int(5), t("P0"), t("x"), t("A")],
        ];
        let rows = summarize(samples.iter().map(|c| (0, c.as_slice())));
        assert_eq!(
            csv(&rows),
            vec![
                "0, min, 3, P0, 7, A",
                "0, max, 9, P2, 12, A",
                "0, mean, 6.00, N/A, 10.00, A",
            ]
        );
    }

    #[test]
    fn floats_keep_their_decimals_and_units() {
        let rows = summarize([
            (3, &[Value::watts_from_mw(100_000)][..]),
            (3, &[Value::watts_from_mw(200_500)][..]),
        ]);
        let cells: Vec<String> = rows
            .iter()
            .map(|r| nvq_core::render::csv::cell_text(&r.cells[2], Some("W"), false))
            .collect();
        assert_eq!(cells, ["100.00 W", "200.50 W", "150.25 W"]);
        let mut keyed = Stats::with_keys(vec![true, false]);
        keyed.add(0, &[Value::Int(0), Value::Int(10)]);
        keyed.add(0, &[Value::Int(0), Value::Int(20)]);
        assert_eq!(
            csv(&keyed.rows()),
            ["0, min, 0, 10", "0, max, 0, 20", "0, mean, 0, 15.00"]
        );
        assert_eq!(Stats::columns(&[]).len(), 2);
    }
}
