//! What nvq knows about a field, apart from how to read it.

/// A group of fields in `--help-query-*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section {
    /// The heading's NAME in `Section about NAME properties`.
    pub name: &'static str,
    /// The section's description, printed under the heading.
    pub help: &'static str,
}

/// What kind of thing a field's value is. Formats that care read it
/// (Prometheus: type and labels); a loop whose GPU missed its deadline still
/// fills the fields that need no driver call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A reading that goes up and down (or text, which Prometheus shows as a
    /// label of the info metric).
    Gauge,
    /// A count that only grows until a reset: a Prometheus counter.
    Counter,
    /// A number that tells the rows of one GPU apart (a process id): a label
    /// of every series of the row, never a series of its own.
    RowLabel,
    /// The GPU's index: the `gpu` label. Known without asking the driver.
    GpuIndex,
    /// How many GPUs there are. Known without asking the driver.
    GpuCount,
    /// When the row was read. Known without asking the driver; never a series.
    Timestamp,
}

/// Everything about a field except how to read it.
#[derive(Debug, Clone, Copy)]
pub struct FieldInfo {
    /// Canonical name, printed in the CSV header.
    pub name: &'static str,
    /// Other accepted spellings (the header still shows `name`).
    pub aliases: &'static [&'static str],
    /// Unit shown in the header (`memory.used [MiB]`) and after numeric values.
    pub unit: Option<&'static str>,
    /// A `--help-query-*` section heading printed just before this field.
    pub heading: Option<Section>,
    /// nvq's own description of the field.
    pub help: &'static str,
    /// A field nvq adds; nvidia-smi does not know it.
    pub extension: bool,
    /// A catalogue fact that some view needs but `--query-gpu` does not
    /// offer (BAR1, PCIe replays, the minor number): not a field.
    pub internal: bool,
    /// On drivers older than `.0`, nvidia-smi's canonical name was `.1`
    /// (the `clocks_throttle_reasons.*` spellings before 535).
    pub renamed: Option<(u32, &'static str)>,
    /// What kind of value it is.
    pub kind: FieldKind,
    /// The physical quantity of a field without a header unit (temperatures
    /// print bare numbers in degrees Celsius); `None`: the unit's.
    pub quantity: Option<Quantity>,
    /// The Prometheus metric stem, where it is not the field's name in
    /// snake_case (`count` is `gpus`).
    pub metric: Option<&'static str>,
}

impl FieldInfo {
    /// A plain field with no aliases, unit or section.
    pub const fn new(name: &'static str, help: &'static str) -> Self {
        FieldInfo {
            name,
            aliases: &[],
            unit: None,
            heading: None,
            help,
            extension: false,
            internal: false,
            renamed: None,
            kind: FieldKind::Gauge,
            quantity: None,
            metric: None,
        }
    }

    /// A count that only grows (see [`FieldKind::Counter`]).
    pub const fn counter(mut self) -> Self {
        self.kind = FieldKind::Counter;
        self
    }

    /// A number that tells a GPU's rows apart (see [`FieldKind::RowLabel`]).
    pub const fn row_label(mut self) -> Self {
        self.kind = FieldKind::RowLabel;
        self
    }

    /// The field with this [`FieldKind`].
    pub const fn kind(mut self, kind: FieldKind) -> Self {
        self.kind = kind;
        self
    }

    /// The sample time (see [`FieldKind::Timestamp`]).
    pub const fn timestamp(self) -> Self {
        self.kind(FieldKind::Timestamp)
    }

    /// A bare number in degrees Celsius (nvidia-smi's header names no unit).
    pub const fn celsius(mut self) -> Self {
        self.quantity = Some(Quantity::Temperature);
        self
    }

    /// The Prometheus metric stem, where snake_case of the name is not it.
    pub const fn metric(mut self, stem: &'static str) -> Self {
        self.metric = Some(stem);
        self
    }

    /// The quantity of the field's numbers and the size of one of them in
    /// the quantity's base unit (MiB: 1,048,576 bytes).
    pub fn measure(&self) -> (Quantity, f64) {
        match (self.unit, self.quantity) {
            (Some(symbol), _) => Unit::find(symbol)
                .map_or((Quantity::Other(symbol), 1.0), |u| (u.quantity, u.in_base)),
            (None, Some(q)) => (q, 1.0),
            (None, None) => (Quantity::Plain, 1.0),
        }
    }

    /// The field, also accepted under these spellings (see [`FieldInfo::aliases`]).
    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    /// The field, with this unit in its header and after its numbers (`MiB`, `W`, `%`).
    pub const fn unit(mut self, unit: &'static str) -> Self {
        self.unit = Some(unit);
        self
    }

    /// Print the section heading `Section about NAME properties` (and the
    /// section's description) before this field in `--help-query-*`.
    pub const fn heading(mut self, name: &'static str, help: &'static str) -> Self {
        self.heading = Some(Section { name, help });
        self
    }

    /// A field nvq adds, which nvidia-smi does not know (see [`FieldInfo::extension`]).
    pub const fn extension(mut self) -> Self {
        self.extension = true;
        self
    }

    /// A fact no `--query-gpu` field shows (see [`FieldInfo::internal`]).
    pub const fn internal(mut self) -> Self {
        self.internal = true;
        self
    }

    /// A field that drivers before major `before_driver` named `old_name` (see [`FieldInfo::renamed`]).
    pub const fn renamed(mut self, before_driver: u32, old_name: &'static str) -> Self {
        self.renamed = Some((before_driver, old_name));
        self
    }

    /// Does `token` name this field (canonical name or alias)?
    pub fn matches(&self, token: &str) -> bool {
        self.name == token
            || self.aliases.contains(&token)
            || self.renamed.is_some_and(|(_, old)| old == token)
    }

    /// The name nvidia-smi of the given driver major version prints in the header.
    pub fn header_name(&self, driver_major: u32) -> &'static str {
        match self.renamed {
            Some((before, old)) if driver_major > 0 && driver_major < before => old,
            _ => self.name,
        }
    }

    /// The full CSV header cell: `name [unit]`.
    pub fn header(&self, driver_major: u32) -> String {
        let name = self.header_name(driver_major);
        match self.unit {
            Some(u) => format!("{name} [{u}]"),
            None => name.to_string(),
        }
    }
}

/// A field: its description plus the function that reads it.
pub struct FieldDef<G> {
    /// The field's description: name, unit, kind, help.
    pub info: FieldInfo,
    /// How a source reads it (each source's own getter type).
    pub get: G,
}

/// The quantity and size in base units of a number printed with `unit`
/// (or, without one, of the given quantity, else a plain number).
pub(super) fn measure(unit: Option<&'static str>, quantity: Option<Quantity>) -> (Quantity, f64) {
    match (unit, quantity) {
        (Some(symbol), _) => {
            Unit::find(symbol).map_or((Quantity::Other(symbol), 1.0), |u| (u.quantity, u.in_base))
        }
        (None, Some(q)) => (q, 1.0),
        (None, None) => (Quantity::Plain, 1.0),
    }
}

/// What a number measures. Every quantity has one base unit, the one
/// Prometheus names (bytes, watts, hertz, seconds, celsius, ratio).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// Memory or data size; base unit bytes.
    Size,
    /// Power; base unit watts.
    Power,
    /// A clock frequency; base unit hertz.
    Clock,
    /// A duration; base unit seconds.
    Time,
    /// A temperature; base unit degrees Celsius.
    Temperature,
    /// A share of a whole; base unit the ratio 0..=1 (a percent is 0.01).
    Fraction,
    /// A count or another plain number.
    Plain,
    /// A rate of change of power (power smoothing ramps).
    PowerRate,
    /// A unit nvq knows by name only.
    Other(&'static str),
}

impl Quantity {
    /// The base unit's name in a Prometheus metric name (`""` for a plain number).
    pub fn base_unit(self) -> &'static str {
        match self {
            Quantity::Size => "bytes",
            Quantity::Power => "watts",
            Quantity::PowerRate => "watts_per_second",
            Quantity::Clock => "hertz",
            Quantity::Time => "seconds",
            Quantity::Temperature => "celsius",
            Quantity::Fraction => "ratio",
            Quantity::Plain => "",
            Quantity::Other(u) => u,
        }
    }
}

/// A unit that headers print or users write (`--where 'memory.free > 20GiB'`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    /// How it is spelled, exactly (`MiB`, `W`, `°C`); matched case-sensitively.
    pub symbol: &'static str,
    /// What it measures.
    pub quantity: Quantity,
    /// One of this unit in the quantity's base unit.
    pub in_base: f64,
}

const fn unit(symbol: &'static str, quantity: Quantity, in_base: f64) -> Unit {
    Unit {
        symbol,
        quantity,
        in_base,
    }
}

const KIB: f64 = 1024.0;

/// Every unit nvq knows: the headers' units and the ones users write.
pub const UNITS: &[Unit] = &[
    unit("B", Quantity::Size, 1.0),
    unit("KiB", Quantity::Size, KIB),
    unit("MiB", Quantity::Size, KIB * KIB),
    unit("GiB", Quantity::Size, KIB * KIB * KIB),
    unit("TiB", Quantity::Size, KIB * KIB * KIB * KIB),
    unit("KB", Quantity::Size, 1e3),
    unit("MB", Quantity::Size, 1e6),
    unit("GB", Quantity::Size, 1e9),
    unit("TB", Quantity::Size, 1e12),
    unit("mW", Quantity::Power, 1e-3),
    unit("W", Quantity::Power, 1.0),
    unit("kW", Quantity::Power, 1e3),
    unit("W/s", Quantity::PowerRate, 1.0),
    unit("Hz", Quantity::Clock, 1.0),
    unit("kHz", Quantity::Clock, 1e3),
    unit("MHz", Quantity::Clock, 1e6),
    unit("GHz", Quantity::Clock, 1e9),
    unit("ns", Quantity::Time, 1e-9),
    unit("us", Quantity::Time, 1e-6),
    unit("ms", Quantity::Time, 1e-3),
    unit("s", Quantity::Time, 1.0),
    unit("sec", Quantity::Time, 1.0),
    unit("seconds", Quantity::Time, 1.0),
    unit("m", Quantity::Time, 60.0),
    unit("min", Quantity::Time, 60.0),
    unit("h", Quantity::Time, 3600.0),
    unit("d", Quantity::Time, 86_400.0),
    unit("C", Quantity::Temperature, 1.0),
    unit("°C", Quantity::Temperature, 1.0),
    unit("%", Quantity::Fraction, 0.01),
];

impl Unit {
    /// The unit spelled exactly `symbol`.
    pub fn find(symbol: &str) -> Option<Unit> {
        UNITS.iter().find(|u| u.symbol == symbol).copied()
    }
}
