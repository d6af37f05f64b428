//! Rows and columns: what a source produces and a renderer prints.

use super::{ColumnId, FieldInfo, FieldKind, Quantity, Value};

/// One output column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// What the column shows, by id: code looks values up by it.
    pub id: ColumnId,
    /// The field's canonical name (JSON key, Prometheus metric stem).
    pub name: &'static str,
    /// The name the CSV header prints (differs from `name` on old drivers).
    pub header_name: &'static str,
    /// The field's unit, if it has one.
    pub unit: Option<&'static str>,
    /// The field's help text (Prometheus `# HELP`).
    pub help: &'static str,
    /// What kind of value it is (see [`FieldInfo::kind`]).
    pub kind: FieldKind,
    /// The quantity of a field without a unit (see [`FieldInfo::quantity`]).
    pub quantity: Option<Quantity>,
    /// The Prometheus stem, where it is not the name's (see [`FieldInfo::metric`]).
    pub metric: Option<&'static str>,
}

impl Column {
    /// The column `id` of a registry field, named as the given driver's nvidia-smi names it.
    pub fn new(id: ColumnId, info: &FieldInfo, driver_major: u32) -> Self {
        Column {
            id,
            name: info.name,
            header_name: info.header_name(driver_major),
            unit: info.unit,
            help: info.help,
            kind: info.kind,
            quantity: info.quantity,
            metric: info.metric,
        }
    }

    /// A column that is not a registry field (a statistic's name, a test's).
    pub fn plain(name: &'static str, unit: Option<&'static str>, help: &'static str) -> Self {
        Column {
            id: ColumnId::Text(name),
            name,
            header_name: name,
            unit,
            help,
            kind: FieldKind::Gauge,
            quantity: None,
            metric: None,
        }
    }

    /// The quantity of the column's numbers and the size of one of them in
    /// the quantity's base unit.
    pub fn measure(&self) -> (Quantity, f64) {
        super::field::measure(self.unit, self.quantity)
    }

    /// The header cell: `name [unit]`.
    pub fn header(&self) -> String {
        match self.unit {
            Some(u) => format!("{} [{u}]", self.header_name),
            None => self.header_name.to_string(),
        }
    }
}

/// Who a row is about, for formats that label rows by GPU (Prometheus).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GpuIdent {
    /// The GPU's NVML index (the `gpu` label).
    pub index: u32,
    /// Its UUID, `GPU-…`; empty when unknown (the label is then left out).
    pub uuid: String,
    /// Its product name, as `nvmlDeviceGetName` gives it; empty when unknown.
    pub name: String,
    /// Its PCI bus id, `00000000:01:00.0`; empty when unknown.
    pub pci_bus_id: String,
}

/// One output row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The cells, one per column of the query, in column order.
    pub cells: Vec<Value>,
    /// The GPU the row belongs to, when the format needs it
    /// (`render::Formatter::needs_gpu_ident`).
    pub gpu: Option<std::sync::Arc<GpuIdent>>,
    /// When the row was sampled, as the `timestamp` field prints it
    /// (`YYYY/MM/DD HH:MM:SS.mmm`, local time), when the collector knows it.
    pub timestamp: Option<String>,
    /// The same moment as a clock reading (NDJSON's `timestamp.epoch`).
    pub time: Option<std::time::SystemTime>,
    /// What tells this row apart from the other rows of its GPU, whether or
    /// not those fields were queried (`pid`, a clock pair, a cause): labels
    /// for formats that need every row to be unique (Prometheus).
    pub labels: Vec<(&'static str, String)>,
}

impl Row {
    /// The cell of column `id`, the row's cells being those of `columns`
    /// (the first, if the column is there more than once).
    pub fn get(&self, columns: &[Column], id: impl Into<ColumnId>) -> Option<&Value> {
        let id = id.into();
        columns
            .iter()
            .position(|c| c.id == id)
            .and_then(|i| self.cells.get(i))
    }

    /// A row of these cells, with no GPU, no time and no labels attached.
    pub fn new(cells: Vec<Value>) -> Self {
        Row {
            cells,
            gpu: None,
            timestamp: None,
            time: None,
            labels: Vec::new(),
        }
    }
}

/// XID errors of one code on one GPU, counted since nvq began watching.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XidCount {
    /// The GPU's NVML index.
    pub gpu: u32,
    /// The XID number (`79`: the GPU has fallen off the bus).
    pub code: u64,
    /// How many errors of this code the GPU has reported since nvq started watching.
    pub count: u64,
    /// Whether this code is the GPU's most recent XID error.
    pub last: bool,
    /// When the most recent error of this code on this GPU was received,
    /// in milliseconds since the Unix epoch (NVML's events carry no time).
    pub last_unix_ms: u64,
}
