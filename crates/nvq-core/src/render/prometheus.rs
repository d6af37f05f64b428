//! `--format=prometheus`: the Prometheus text exposition format, as read by
//! node_exporter's textfile collector.
//!
//! - Every numeric field is a metric family `nvq_<field>_<base unit>`: the
//!   field name in snake_case (`.` and other separators become `_`,
//!   `averageFps` becomes `average_fps`), then the base unit: `bytes` (MiB
//!   fields, exact byte counts), `watts`, `celsius` (`temperature.*`),
//!   `hertz` (MHz), `ratio` (percentages divided by 100), `seconds` (us, ms).
//! - `# HELP` is the field's help text; `# TYPE` is `counter` (name ending
//!   in `_total`) for monotonic counts (`ecc.errors.*`,
//!   `clocks_event_reasons_counters.*`, `retired_pages.*.count`), `gauge`
//!   otherwise. `count` is `nvq_gpus`; a gauge that would end in a suffix
//!   reserved for histograms (`_count`, `_sum`, `_bucket`) gets `_value`;
//!   a name segment that reads as a metric type is replaced
//!   (`histogram` → `availability`, `summary` → `overall`).
//! - Every sample carries the labels `gpu` (index), `uuid`, `name` and
//!   `pci_bus_id` from [`Row::gpu`] (a label whose value is unknown, as on
//!   a lost GPU, is left out).
//! - Text fields become labels of `nvq_gpu_info{...} 1`, one per row.
//! - A cell without a value (`[N/A]`, `[GPU is lost]`, bare `N/A`) is left
//!   out; no sentinel is ever written.
//! - `index` and `timestamp` are not metrics (the first is the `gpu`
//!   label; the second would make every scrape a new series).
//!
//! Each sample is one complete exposition; the format is meant to be run
//! once per scrape or timer tick.

use super::Formatter;
use crate::model::Value;
use crate::model::{Column, FieldKind, Row};
use std::fmt::Write;

/// The info metric carrying text fields as labels.
pub const INFO_METRIC: &str = "nvq_gpu_info";

const INFO_HELP: &str =
    "Identity of the GPU and the text fields queried, as labels; the value is always 1.";

/// A field's metric: name, type and conversion.
#[derive(Debug, Clone, PartialEq)]
struct Metric {
    name: String,
    counter: bool,
    /// One of the column's units in the metric's base unit.
    in_base: f64,
}

/// `encoder.stats.averageFps` → `encoder_stats_average_fps`: ASCII
/// lowercase letters, digits and single underscores.
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    let mut after_lower = false;
    for ch in name.chars() {
        if ch.is_ascii_uppercase() {
            if after_lower {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
            after_lower = false;
        } else if ch.is_ascii_alphanumeric() {
            out.push(ch);
            after_lower = true;
        } else {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            after_lower = false;
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// Name segments promtool reads as a metric type, and what nvq writes
/// instead (`remapped_rows.histogram.*` is the bank availability histogram;
/// `fabric.health.summary` the overall health).
const TYPE_WORDS: &[(&str, &str)] = &[
    ("histogram", "availability"),
    ("summary", "overall"),
    ("gauge", "level"),
    ("counter", "count"),
];

/// Suffixes the exposition format reserves for histograms and summaries.
const RESERVED_SUFFIXES: &[&str] = &["_count", "_sum", "_bucket"];

/// Is the column a series? Timestamps and the GPU index (the `gpu` label)
/// are not, nor are the numbers that label rows (`pid`).
fn is_metric(col: &Column) -> bool {
    !matches!(
        col.kind,
        FieldKind::Timestamp | FieldKind::GpuIndex | FieldKind::RowLabel
    )
}

fn metric(col: &Column) -> Metric {
    let stem = col
        .metric
        .map_or_else(|| snake_case(col.name), snake_case)
        .split('_')
        .map(|seg| {
            TYPE_WORDS
                .iter()
                .find(|(w, _)| *w == seg)
                .map_or(seg, |(_, r)| r)
        })
        .collect::<Vec<_>>()
        .join("_");
    let (quantity, in_base) = col.measure();
    let unit = snake_case(quantity.base_unit());
    let mut name = format!("nvq_{stem}");
    if !unit.is_empty() && !name.ends_with(&format!("_{unit}")) {
        name.push('_');
        name.push_str(&unit);
    }
    let counter = col.kind == FieldKind::Counter;
    if counter && !name.ends_with("_total") {
        name.push_str("_total");
    }
    // A gauge must not read as a counter, nor anything as a histogram part.
    if RESERVED_SUFFIXES.iter().any(|s| name.ends_with(s)) || (!counter && name.ends_with("_total"))
    {
        name.push_str("_value");
    }
    Metric {
        name,
        counter,
        in_base,
    }
}

/// Append a sample value in base units; `false` if the cell has none.
/// Integers scaled up by a whole factor (MiB, MHz) stay exact; a unit below
/// the base (%, us, ms) divides by its whole reciprocal.
fn write_value(v: &Value, in_base: f64, out: &mut String) -> bool {
    let float = |x: f64, out: &mut String| {
        let x = if in_base < 1.0 {
            x / (1.0 / in_base).round()
        } else {
            x * in_base
        };
        if x.is_finite() {
            let _ = write!(out, "{x}");
            true
        } else {
            false
        }
    };
    match v {
        Value::Bytes(b) => {
            let _ = write!(out, "{b}");
            true
        }
        Value::Int(i) if in_base >= 1.0 && in_base.fract() == 0.0 && in_base < 1e15 => {
            let _ = write!(out, "{}", i128::from(*i) * in_base as i128);
            true
        }
        Value::Int(i) => float(*i as f64, out),
        Value::Float { value, .. } => float(*value, out),
        Value::Text(_) | Value::NotAvailable | Value::Error(_) => false,
    }
}

/// Escape a `# HELP` text.
fn escape_help(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n")
}

/// Escape a label value.
fn escape_label(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A GPU's labels: `gpu` (its index), then its `uuid`, `name` and `pci_bus_id` where known.
pub(super) fn ident_labels(g: &crate::model::GpuIdent) -> Vec<(String, String)> {
    let mut labels = vec![("gpu".to_string(), g.index.to_string())];
    for (k, v) in [
        ("uuid", &g.uuid),
        ("name", &g.name),
        ("pci_bus_id", &g.pci_bus_id),
    ] {
        if !v.is_empty() {
            labels.push((k.to_string(), v.clone()));
        }
    }
    labels
}

/// The labels every sample of `row` carries.
fn row_labels(columns: &[Column], row: &Row) -> Vec<(String, String)> {
    let mut labels = Vec::new();
    if let Some(g) = &row.gpu {
        labels = ident_labels(g);
    } else if let Some(Value::Int(i)) = columns
        .iter()
        .position(|c| c.kind == FieldKind::GpuIndex)
        .and_then(|p| row.cells.get(p))
    {
        labels.push(("gpu".to_string(), i.to_string()));
    }
    for (k, v) in &row.labels {
        if !labels.iter().any(|(n, _)| n == k) {
            labels.push(((*k).to_string(), v.clone()));
        }
    }
    for (c, v) in columns.iter().zip(&row.cells) {
        if let (FieldKind::RowLabel, Value::Int(i)) = (c.kind, v) {
            let k = snake_case(c.name);
            if !labels.iter().any(|(n, _)| *n == k) {
                labels.push((k, i.to_string()));
            }
        }
    }
    labels
}

pub(super) fn write_sample(name: &str, labels: &[(String, String)], value: &str, out: &mut String) {
    out.push_str(name);
    if !labels.is_empty() {
        out.push('{');
        for (i, (k, v)) in labels.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{k}=\"{}\"", escape_label(v));
        }
        out.push('}');
    }
    out.push(' ');
    out.push_str(value);
    out.push('\n');
}

pub(super) fn write_family(name: &str, help: &str, counter: bool, out: &mut String) {
    let _ = writeln!(out, "# HELP {name} {}", escape_help(help));
    let _ = writeln!(
        out,
        "# TYPE {name} {}",
        if counter { "counter" } else { "gauge" }
    );
}

/// A family of one sample without labels (a health series): its
/// `# HELP`/`# TYPE` lines and the sample.
pub(super) fn write_single(name: &str, help: &str, counter: bool, value: &str, out: &mut String) {
    write_family(name, help, counter, out);
    write_sample(name, &[], value, out);
}

/// A family's `# HELP`/`# TYPE` lines and then its `samples`, unless it has
/// none (a family without samples is left out).
pub(super) fn write_samples(
    name: &str,
    help: &str,
    counter: bool,
    samples: &str,
    out: &mut String,
) {
    if !samples.is_empty() {
        write_family(name, help, counter, out);
        out.push_str(samples);
    }
}

/// The `--format=prometheus` formatter: each sample is a whole text exposition, rows labelled by
/// GPU (so it asks the collector for GPU identities); stateless.
#[derive(Debug, Default)]
pub struct Prometheus;

impl Prometheus {
    /// A Prometheus formatter (the same as `Prometheus::default()`).
    pub fn new() -> Self {
        Prometheus
    }
}

impl Formatter for Prometheus {
    fn needs_gpu_ident(&self) -> bool {
        true
    }

    fn sample(&mut self, columns: &[Column], rows: &[Row], out: &mut Vec<u8>) {
        let mut text = String::new();
        let labels: Vec<Vec<(String, String)>> =
            rows.iter().map(|r| row_labels(columns, r)).collect();

        // The info metric: identity plus text fields.
        let mut info = String::new();
        for (row, base) in rows.iter().zip(&labels) {
            let mut l = base.clone();
            for (c, v) in columns.iter().zip(&row.cells) {
                let Value::Text(t) = v else { continue };
                if !is_metric(c) {
                    continue;
                }
                let k = snake_case(c.name);
                if !l.iter().any(|(n, _)| *n == k) {
                    l.push((k, t.clone()));
                }
            }
            if !l.is_empty() {
                write_sample(INFO_METRIC, &l, "1", &mut info);
            }
        }
        // A sample without rows (every process exited) is still a whole
        // exposition: the families, without samples, so that a file it
        // replaces no longer shows what was there.
        let empty = rows.is_empty();
        if !info.is_empty() || empty {
            write_family(INFO_METRIC, INFO_HELP, false, &mut text);
            text.push_str(&info);
        }

        // One family per numeric field, queried duplicates once.
        let mut done: Vec<String> = Vec::new();
        for (i, col) in columns.iter().enumerate() {
            if !is_metric(col) {
                continue;
            }
            let m = metric(col);
            if done.contains(&m.name) {
                continue;
            }
            let mut samples = String::new();
            let mut value = String::new();
            for (row, l) in rows.iter().zip(&labels) {
                value.clear();
                if row
                    .cells
                    .get(i)
                    .is_some_and(|v| write_value(v, m.in_base, &mut value))
                {
                    write_sample(&m.name, l, &value, &mut samples);
                }
            }
            if !samples.is_empty() || empty {
                write_family(&m.name, col.help, m.counter, &mut text);
                text.push_str(&samples);
            }
            done.push(m.name);
        }
        out.extend_from_slice(text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::GpuIdent;
    use crate::model::NvmlCode;
    use crate::render::json::tests::col;
    use std::sync::Arc as Rc;

    fn ident(index: u32, uuid: &str) -> Option<Rc<GpuIdent>> {
        Some(Rc::new(GpuIdent {
            index,
            uuid: uuid.into(),
            name: if uuid.is_empty() {
                ""
            } else {
                "NVIDIA \"H100\""
            }
            .into(),
            pci_bus_id: if uuid.is_empty() {
                ""
            } else {
                "00000000:18:00.0"
            }
            .into(),
        }))
    }

    fn render(columns: &[Column], rows: &[Row]) -> String {
        crate::render::render_once(&mut Prometheus::new(), columns, rows)
    }

    #[test]
    fn names_and_units() {
        let cases = [
            ("memory.used", Some("MiB"), "nvq_memory_used_bytes", false),
            ("power.draw", Some("W"), "nvq_power_draw_watts", false),
            (
                "temperature.gpu",
                None,
                "nvq_temperature_gpu_celsius",
                false,
            ),
            (
                "clocks.current.sm",
                Some("MHz"),
                "nvq_clocks_current_sm_hertz",
                false,
            ),
            (
                "utilization.gpu",
                Some("%"),
                "nvq_utilization_gpu_ratio",
                false,
            ),
            (
                "encoder.stats.averageFps",
                None,
                "nvq_encoder_stats_average_fps",
                false,
            ),
            (
                "bbx.time_run",
                Some("seconds"),
                "nvq_bbx_time_run_seconds",
                false,
            ),
            (
                "clocks_event_reasons_counters.sw_power_cap",
                Some("us"),
                "nvq_clocks_event_reasons_counters_sw_power_cap_seconds_total",
                true,
            ),
            (
                "ecc.errors.corrected.aggregate.total",
                None,
                "nvq_ecc_errors_corrected_aggregate_total",
                true,
            ),
            (
                "ecc.errors.uncorrected.aggregate.l2_cache",
                None,
                "nvq_ecc_errors_uncorrected_aggregate_l2_cache_total",
                true,
            ),
        ];
        let more = [
            ("count", None, "nvq_gpus", false),
            (
                "retired_pages.double_bit.count",
                None,
                "nvq_retired_pages_double_bit_count_total",
                true,
            ),
            ("some.sum", None, "nvq_some_sum_value", false),
            (
                "some.gauge.total",
                None,
                "nvq_some_level_total_value",
                false,
            ),
            (
                "remapped_rows.histogram.max",
                None,
                "nvq_remapped_rows_availability_max",
                false,
            ),
            (
                "fabric.health.summary",
                None,
                "nvq_fabric_health_overall",
                false,
            ),
        ];
        for (field, unit, name, counter) in cases.into_iter().chain(more) {
            // The facts the registry declares for these fields.
            let mut c = col(field, unit);
            if counter {
                c.kind = FieldKind::Counter;
            }
            if field.starts_with("temperature.") {
                c.quantity = Some(crate::model::Quantity::Temperature);
            }
            if field == "count" {
                c.metric = Some("gpus");
            }
            let m = metric(&c);
            assert_eq!((m.name.as_str(), m.counter), (name, counter), "{field}");
        }
    }

    #[test]
    fn values_in_base_units() {
        let mut s = String::new();
        let mut v = |value: Value, scale| {
            s.clear();
            assert!(write_value(&value, scale, &mut s));
            s.clone()
        };
        let scale = |unit| crate::model::Unit::find(unit).map_or(1.0, |u| u.in_base);
        let mib = scale("MiB");
        assert_eq!(v(Value::Bytes(21_474_836_480), mib), "21474836480");
        assert_eq!(v(Value::Int(3), mib), "3145728");
        assert_eq!(v(Value::Int(1980), scale("MHz")), "1980000000");
        assert_eq!(v(Value::Int(87), scale("%")), "0.87");
        assert_eq!(v(Value::Int(7), scale("%")), "0.07");
        assert_eq!(v(Value::Int(212_553_937), scale("us")), "212.553937");
        assert_eq!(v(Value::Int(1500), scale("ms")), "1.5");
        assert_eq!(v(Value::watts_from_mw(412_345), scale("W")), "412.345");
        assert_eq!(v(Value::watts_from_mw(700_000), scale("W")), "700");
        let mut out = String::new();
        assert!(!write_value(&Value::NotAvailable, 1.0, &mut out));
        assert!(!write_value(
            &Value::err(NvmlCode::GPU_IS_LOST),
            1.0,
            &mut out
        ));
        assert!(!write_value(&Value::text("x"), 1.0, &mut out));
        assert!(out.is_empty());
    }

    #[test]
    fn exposition_with_info_metric_and_missing_values_left_out() {
        let mut columns = vec![
            col("index", None),
            col("name", None),
            col("driver_version", None),
            col("memory.used", Some("MiB")),
            col("power.draw", Some("W")),
            col("timestamp", None),
        ];
        columns[0].kind = FieldKind::GpuIndex;
        columns[5].kind = FieldKind::Timestamp;
        let mut a = Row::new(vec![
            Value::Int(0),
            Value::text("NVIDIA \"H100\""),
            Value::text("580.82.07"),
            Value::Bytes(1 << 30),
            Value::err(NvmlCode::NOT_SUPPORTED),
            Value::text("2026/01/02 03:04:05.678"),
        ]);
        a.gpu = ident(0, "GPU-a");
        let mut b = Row::new(vec![
            Value::Int(1),
            Value::err(NvmlCode::GPU_IS_LOST),
            Value::text("580.82.07"),
            Value::err(NvmlCode::GPU_IS_LOST),
            Value::err(NvmlCode::GPU_IS_LOST),
            Value::text("2026/01/02 03:04:05.679"),
        ]);
        b.gpu = ident(1, "");
        assert_eq!(
            render(&columns, &[a, b]),
            concat!(
                "# HELP nvq_gpu_info Identity of the GPU and the text fields queried, as labels; the \
                 value is always 1.\n",
                "# TYPE nvq_gpu_info gauge\n",
                "nvq_gpu_info{gpu=\"0\",uuid=\"GPU-a\",name=\"NVIDIA \
                 \\\"H100\\\"\",pci_bus_id=\"00000000:18:00.0\",driver_version=\"580.82.07\"} 1\n",
                "nvq_gpu_info{gpu=\"1\",driver_version=\"580.82.07\"} 1\n",
                "# HELP nvq_memory_used_bytes help text\n",
                "# TYPE nvq_memory_used_bytes gauge\n",
                "nvq_memory_used_bytes{gpu=\"0\",uuid=\"GPU-a\",name=\"NVIDIA \
                 \\\"H100\\\"\",pci_bus_id=\"00000000:18:00.0\"} 1073741824\n",
            )
        );
    }

    #[test]
    fn without_ident_the_index_labels_rows_and_pid_is_a_label() {
        let mut columns = vec![
            col("index", None),
            col("pid", None),
            col("used_memory", Some("MiB")),
        ];
        columns[0].kind = FieldKind::GpuIndex;
        columns[1].kind = FieldKind::RowLabel;
        let rows = vec![
            Row::new(vec![Value::Int(0), Value::Int(42), Value::Int(5)]),
            Row::new(vec![Value::Int(0), Value::Int(43), Value::Int(6)]),
        ];
        let text = render(&columns, &rows);
        assert!(
            text.contains("nvq_used_memory_bytes{gpu=\"0\",pid=\"42\"} 5242880\n"),
            "{text}"
        );
        assert!(
            text.contains("nvq_used_memory_bytes{gpu=\"0\",pid=\"43\"} 6291456\n"),
            "{text}"
        );
        assert!(!text.contains("nvq_pid"), "{text}");
    }

    #[test]
    fn help_and_label_escaping() {
        assert_eq!(escape_help("a\\b\nc \"q\""), "a\\\\b\\nc \"q\"");
        assert_eq!(escape_label("a\\b\nc \"q\""), "a\\\\b\\nc \\\"q\\\"");
        assert_eq!(snake_case("pci.baseClass"), "pci_base_class");
        assert_eq!(
            snake_case("vgpu_driver_capability.heterogenous_multivGPU"),
            "vgpu_driver_capability_heterogenous_multiv_gpu"
        );
        assert_eq!(snake_case("a..b__c."), "a_b_c");
    }
}
