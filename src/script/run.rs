//! The scripting flags put together: what happens to each sample's rows
//! between collection and printing.
//!
//! For every sample, in this order:
//! 1. `--until`/`--until-all` is evaluated on all rows read (before
//!    `--where`), and says whether the loop stops after this sample;
//! 2. `--where` drops the rows that do not satisfy it;
//! 3. `--assert` checks the rows kept; failures are reported (the loop
//!    stops after this sample and nvq exits 20);
//! 4. the rows are cut back to the queried columns (expressions may read
//!    fields that are not printed);
//! 5. `--summary` adds the rows kept to its statistics.

use super::{read_list, Expr, Stats};
use crate::error::NvqError;
use crate::model::{FieldInfo, Row, Value};
use crate::source::QueryMode;
use std::time::Duration;

/// The default loop interval of `--until` when no `-l`/`-lms` is given.
pub const UNTIL_DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// Which rows `--until` needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantifier {
    /// `--until`: at least one row.
    Any,
    /// `--until-all`: every row; vacuously true when there are none.
    All,
}

/// What a sample means for the loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Continue,
    /// `--until` holds: stop after printing this sample.
    UntilMet,
    /// `--assert` failed: stop after printing this sample, then exit 20
    /// with this message.
    AssertFailed(String),
}

/// The scripting flags as given on the command line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags<'a> {
    pub where_: Option<&'a str>,
    pub assert: Option<&'a str>,
    pub until: Option<&'a str>,
    pub until_all: Option<&'a str>,
    pub timeout: Option<&'a str>,
    pub summary: bool,
}

impl Flags<'_> {
    /// Is any flag given?
    pub fn any(&self) -> bool {
        self.where_.is_some()
            || self.assert.is_some()
            || self.until.is_some()
            || self.until_all.is_some()
            || self.timeout.is_some()
            || self.summary
    }
}

/// The scripting flags of one query, compiled.
#[derive(Debug, Clone)]
pub struct Script {
    pub where_: Option<Expr>,
    pub assert: Option<Expr>,
    pub until: Option<(Expr, Quantifier)>,
    pub timeout: Option<Duration>,
    pub summary: Option<Stats>,
    /// The fields expressions name (a mode's fields, or a monitor's columns).
    infos: Vec<FieldInfo>,
    key: RowKey,
    read: Vec<usize>,
    shown: usize,
    /// [`RowKey::Labels`]: a number for each row's labels, in order seen.
    label_keys: LabelKeys,
}

/// Numbers for the label sets of a list mode's rows (a PID, a clock pair).
#[derive(Debug, Clone, Default)]
struct LabelKeys(Vec<Vec<(&'static str, String)>>);

impl LabelKeys {
    fn key(&mut self, labels: &[(&'static str, String)]) -> u32 {
        let at = match self.0.iter().position(|l| l.as_slice() == labels) {
            Some(at) => at,
            None => {
                self.0.push(labels.to_vec());
                self.0.len() - 1
            }
        };
        u32::try_from(at).unwrap_or(u32::MAX)
    }
}

/// What tells rows apart for `--summary` and `--assert` messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKey {
    /// One row per GPU, named by the caller (`--query-gpu`).
    Gpu,
    /// The GPU index and maybe a second number (a PID) in these cells:
    /// `pmon` keeps one summary per process, `dmon` one per GPU.
    Cells { gpu: usize, sub: Option<usize> },
    /// A list mode's rows (`--query-compute-apps`): each row's GPU
    /// ([`Row::gpu`]) and labels (its PID, ...), whether or not queried.
    Labels,
}

impl Script {
    /// Compile the flags for `mode`, whose queried fields are `queried`.
    /// Everything is checked here, before NVML is touched.
    pub fn new(mode: QueryMode, queried: &[usize], flags: Flags) -> Result<Self, NvqError> {
        let key = if mode.row_per_gpu() {
            RowKey::Gpu
        } else {
            RowKey::Labels
        };
        let infos = mode.fields().into_iter().copied().collect();
        Self::with_fields(infos, queried, flags, key)
    }

    /// Compile the flags against any field table (a monitor's columns):
    /// expressions name `infos` by name or alias; rows are told apart by `key`.
    pub fn with_fields(
        infos: Vec<FieldInfo>,
        queried: &[usize],
        flags: Flags,
        key: RowKey,
    ) -> Result<Self, NvqError> {
        let refs: Vec<&FieldInfo> = infos.iter().collect();
        let lookup = |name: &str| refs.iter().position(|f| f.matches(name));
        let compile = |flag: &'static str, src: &str| {
            Expr::compile_with(flag, src, &refs, &lookup)
                .map_err(|e| NvqError::Usage(e.render(flag, src)))
        };
        let Flags {
            where_,
            assert,
            until,
            until_all,
            timeout,
            summary,
        } = flags;
        let where_ = where_.map(|s| compile("--where", s)).transpose()?;
        let assert = assert.map(|s| compile("--assert", s)).transpose()?;
        let until = match (until, until_all) {
            (Some(_), Some(_)) => {
                return Err(NvqError::Usage(
                    "--until and --until-all cannot be used together; choose one.".into(),
                ))
            }
            (Some(s), None) => Some((compile("--until", s)?, Quantifier::Any)),
            (None, Some(s)) => Some((compile("--until-all", s)?, Quantifier::All)),
            (None, None) => None,
        };
        let timeout = match timeout {
            Some(_) if until.is_none() => {
                return Err(NvqError::Usage(
                    "--timeout bounds the wait of --until or --until-all; give one of them.".into(),
                ))
            }
            Some(t) => Some(super::parse_duration("--timeout", t)?),
            None => None,
        };
        let mut script = Script {
            where_,
            assert,
            until,
            timeout,
            summary: summary.then(|| {
                use crate::model::FieldKind;
                let keys = queried
                    .iter()
                    .map(|&f| {
                        infos.get(f).is_some_and(|i| {
                            matches!(
                                i.kind,
                                FieldKind::GpuIndex | FieldKind::RowLabel | FieldKind::GpuCount
                            )
                        })
                    })
                    .collect();
                Stats::with_keys(keys)
            }),
            infos,
            key,
            read: Vec::new(),
            shown: queried.len(),
            label_keys: LabelKeys::default(),
        };
        script.read = read_list(
            queried,
            script
                .where_
                .iter()
                .chain(script.assert.iter())
                .chain(script.until.iter().map(|(e, _)| e)),
        );
        let read = script.read.clone();
        for e in script.exprs_mut() {
            e.bind(&read);
        }
        Ok(script)
    }

    fn exprs_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        self.where_
            .iter_mut()
            .chain(self.assert.iter_mut())
            .chain(self.until.iter_mut().map(|(e, _)| e))
    }

    /// The fields to read for each row: the queried ones, then those only
    /// the expressions need.
    pub fn read(&self) -> &[usize] {
        &self.read
    }

    /// Does any flag need the loop to run? `--until` loops even without
    /// `-l`, every [`UNTIL_DEFAULT_INTERVAL`].
    pub fn needs_loop(&self) -> bool {
        self.until.is_some()
    }

    /// Process one sample's rows (cells in [`Self::read`] order). `gpus`
    /// names each row's GPU (NVML index) in `--query-gpu`; `None` in modes
    /// whose rows are not GPUs. Returns the rows to print.
    pub fn sample(&mut self, rows: Vec<Row>, gpus: Option<&[u32]>) -> (Vec<Row>, Verdict) {
        let until_met = self.until.as_ref().is_some_and(|(e, q)| match q {
            Quantifier::Any => rows.iter().any(|r| e.holds(&r.cells)),
            // Over no rows (a GPU without processes) it holds: "until every
            // process uses less than 1 GiB" is met once there is none.
            Quantifier::All => rows.iter().all(|r| e.holds(&r.cells)),
        });
        let mut kept: Vec<(usize, Row)> = rows
            .into_iter()
            .enumerate()
            .filter(|(_, r)| self.where_.as_ref().map_or(true, |e| e.holds(&r.cells)))
            .collect();
        let mut failures = Vec::new();
        if let Some(e) = &self.assert {
            let infos: Vec<&FieldInfo> = self.infos.iter().collect();
            for (i, r) in &kept {
                if !e.holds(&r.cells) {
                    failures.push(format!(
                        "  {}: {}",
                        self.who(*i, &r.cells, gpus),
                        e.explain(&r.cells, &self.read, &infos)
                    ));
                }
            }
        }
        for (_, r) in &mut kept {
            r.cells.truncate(self.shown);
        }
        if let Some(s) = &mut self.summary {
            for (i, r) in &kept {
                match self.key {
                    RowKey::Gpu => {
                        let gpu = gpus.and_then(|g| g.get(*i)).copied().unwrap_or(*i as u32);
                        s.add(gpu, &r.cells);
                    }
                    RowKey::Cells { gpu, sub } => {
                        let sub = sub.map_or(0, |k| cell_u32(&r.cells, k));
                        s.add_keyed(cell_u32(&r.cells, gpu), sub, &r.cells)
                    }
                    RowKey::Labels => {
                        let gpu = r.gpu.as_ref().map_or(0, |g| g.index);
                        let sub = self.label_keys.key(&r.labels);
                        s.add_keyed(gpu, sub, &r.cells)
                    }
                }
            }
            s.sample_done();
        }
        let verdict = if !failures.is_empty() {
            let e = self.assert.as_ref().map_or("", |e| e.source.as_str());
            Verdict::AssertFailed(format!(
                "nvq: --assert '{e}' failed for {} row{}:\n{}",
                failures.len(),
                if failures.len() == 1 { "" } else { "s" },
                failures.join("\n")
            ))
        } else if until_met {
            Verdict::UntilMet
        } else {
            Verdict::Continue
        };
        (kept.into_iter().map(|(_, r)| r).collect(), verdict)
    }

    /// The message of a run whose `--until` never held.
    pub fn until_missed(&self, why: &str) -> NvqError {
        let (flag, src) = self
            .until
            .as_ref()
            .map_or(("--until", ""), |(e, _)| (e.flag, e.source.as_str()));
        NvqError::Timeout(format!("nvq: {flag} '{src}' did not hold {why}."))
    }
}

impl Script {
    /// How an `--assert` message names a row.
    fn who(&self, i: usize, cells: &[Value], gpus: Option<&[u32]>) -> String {
        if let RowKey::Cells { gpu, sub } = self.key {
            let name = |k: usize| self.infos.get(k).map_or("", |f| f.name);
            return match sub {
                Some(sub) => format!(
                    "GPU {} {} {}",
                    cell_u32(cells, gpu),
                    name(sub),
                    cell_u32(cells, sub)
                ),
                None => format!("GPU {}", cell_u32(cells, gpu)),
            };
        }
        match gpus.and_then(|g| g.get(i)) {
            Some(g) => format!("GPU {g}"),
            None => format!("row {}", i + 1),
        }
    }
}

/// A cell's integer (a GPU index, a PID), 0 when it has none.
fn cell_u32(cells: &[Value], k: usize) -> u32 {
    match cells.get(k) {
        Some(Value::Int(v)) => u32::try_from(*v).unwrap_or(0),
        _ => 0,
    }
}
