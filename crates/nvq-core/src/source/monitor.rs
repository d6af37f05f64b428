//! What the monitors' metric tables share: a metric (its two header lines,
//! nvq's unit and help, the `-s` letter that selects it, where its value
//! comes from) and `-s` itself.

use crate::model::{Fact, NvmlCode, Value};

/// Where a monitor column's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The monitor's own reader, by another key (dmon's GPM columns, read by
    /// their metric id).
    Own,
    /// One of pmon's per-process metrics, read by pmon's reader.
    Process(ProcessMetric),
    /// A catalogue fact, through its one reader, made into the cell by [`Cell`].
    Fact(Fact, Cell),
    /// dmon's `pviol`: the share of the interval spent power capped.
    PowerViolation,
    /// dmon's `tviol`: whether the GPU was held back by temperature.
    ThermalViolation,
}

/// pmon's per-process metrics: each is one row of pmon's table (its header,
/// unit and help) and one arm of pmon's reader, so that a column without a
/// reader does not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessMetric {
    /// Share of SM time.
    Sm,
    /// Share of memory read/write time.
    Mem,
    /// Share of video encoder time.
    Enc,
    /// Share of video decoder time.
    Dec,
    /// Share of JPEG decoder time.
    Jpg,
    /// Share of optical flow accelerator time.
    Ofa,
    /// Frame buffer memory held.
    Fb,
    /// Confidential-computing protected memory held.
    Ccpm,
}

/// How a monitor cell is made from its fact's value: monitors print whole
/// numbers in their own units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// The fact's integer as it is.
    Same,
    /// A real number truncated to a whole one (watts).
    Whole,
    /// Bytes as whole MiB.
    Mib,
    /// KB/s as whole MB/s (of 1024 KB).
    KbAsMb,
    /// An ECC count, shown only while ECC is on (`-` with it off).
    EccCount,
}

const MIB: u64 = 1024 * 1024;

impl Cell {
    /// The cell of `v`, the fact's value. A failed read is its code's cell
    /// (a bare `N/A` becomes NOT_SUPPORTED: monitors print `-` for both).
    pub fn of(self, v: Value) -> Value {
        match (self, v) {
            (_, Value::Error(t)) => Value::err(t.code),
            (_, Value::NotAvailable) => Value::err(NvmlCode::NOT_SUPPORTED),
            (Cell::Whole, Value::Float { value, .. }) => Value::Int(value.trunc() as i64),
            (Cell::Mib, Value::Bytes(b)) => Value::count(b / MIB),
            (Cell::KbAsMb, Value::Int(kb)) => Value::Int(kb / 1024),
            (_, v) => v,
        }
    }
}

/// One monitor column chosen by `-s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metric {
    /// The first header line's name (`pwr`), also nvq's column name.
    pub name: &'static str,
    /// The second header line's text (`W`).
    pub unit_label: &'static str,
    /// nvq's unit for the value (`None`: a bare number).
    pub unit: Option<&'static str>,
    /// nvq's one-line description of what the column shows.
    pub help: &'static str,
    /// The `-s` letter that selects it.
    pub group: char,
    /// Where its value comes from.
    pub source: Source,
    /// The column's kind (counter or gauge) and Prometheus name are its
    /// fact's, so that both views name one quantity alike.
    pub named_by_fact: bool,
}

impl Metric {
    /// The metric's value is `fact`'s, made into a cell by `cell`.
    pub const fn reads(mut self, fact: Fact, cell: Cell) -> Self {
        self.source = Source::Fact(fact, cell);
        self
    }

    /// The metric is pmon's per-process `metric`.
    pub const fn per_process(mut self, metric: ProcessMetric) -> Self {
        self.source = Source::Process(metric);
        self
    }

    /// The metric's value comes from `source`.
    pub const fn source(mut self, source: Source) -> Self {
        self.source = source;
        self
    }

    /// The metric is its fact in Prometheus and `--summary` (kind, name).
    pub const fn named_by_fact(mut self) -> Self {
        self.named_by_fact = true;
        self
    }

    /// The pmon metric it is, if it is one.
    pub fn process(&self) -> Option<ProcessMetric> {
        match self.source {
            Source::Process(p) => Some(p),
            _ => None,
        }
    }

    /// The catalogue fact the metric reads, if it reads one.
    pub fn fact(&self) -> Option<Fact> {
        match self.source {
            Source::Fact(f, _) => Some(f),
            _ => None,
        }
    }
}

/// A table entry.
pub const fn m(
    name: &'static str,
    unit_label: &'static str,
    unit: Option<&'static str>,
    group: char,
    help: &'static str,
) -> Metric {
    Metric {
        name,
        unit_label,
        unit,
        help,
        group,
        source: Source::Own,
        named_by_fact: false,
    }
}

/// A monitor's metric table and its `-s` groups.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    /// Every metric, in nvidia-smi's order within its group.
    pub metrics: &'static [Metric],
    /// The `-s` letters the monitor knows, in the order `-s` lists them.
    pub groups: &'static str,
    /// nvidia-smi's default `-s`.
    pub default_groups: &'static str,
}

impl Table {
    /// The metrics of `-s LETTERS`, group by group in the order given.
    pub fn select(&self, letters: &str) -> Result<Vec<Metric>, char> {
        select(self.metrics, self.groups, letters)
    }
}

/// The metrics of `-s LETTERS` from `table`, group by group in the order
/// given (a letter given twice counts once). `Err(letter)` for a letter
/// that is not one of `groups`.
pub fn select(table: &[Metric], groups: &str, letters: &str) -> Result<Vec<Metric>, char> {
    let mut seen = String::new();
    let mut out = Vec::new();
    for g in letters.chars() {
        if !groups.contains(g) {
            return Err(g);
        }
        if !seen.contains(g) {
            seen.push(g);
            out.extend(table.iter().filter(|m| m.group == g).copied());
        }
    }
    Ok(out)
}
