//! `nvq serve`'s memory foresight (nvq profile): each GPU's memory growth rate and, while it rises steadily,
//! its time to full, from the collection's history (`model::history`, `model::trend`), beside
//! `nvq_memory_used_bytes` and with the same GPU labels.

use super::prometheus::{ident_labels, write_family, write_sample};
use crate::model::trend::Trend;
use crate::model::GpuIdent;

/// Metric name of a GPU's memory-used growth rate, in bytes per second (negative when it falls).
pub const GROWTH: &str = "nvq_memory_used_growth_bytes_per_second";
/// Metric name of a GPU's seconds until memory is full at the current rate; only while memory
/// used rises steadily.
pub const TIME_TO_FULL: &str = "nvq_memory_time_to_full_seconds";

const GROWTH_HELP: &str =
    "Growth of the GPU's memory used over the trend window (Theil-Sen slope of the \
                           window's floors), in bytes per second; negative when it falls.";
const TIME_TO_FULL_HELP: &str =
    "Seconds until the GPU's memory is full at the current growth rate; only while \
                                 memory used has been rising steadily (a leak), absent otherwise.";

/// The two families for `trends` (each GPU and its trend; a GPU without a trend yet is left out). Empty when
/// there is nothing to show.
pub fn render(trends: &[(&GpuIdent, Trend)]) -> Vec<u8> {
    let mut out = String::new();
    if !trends.is_empty() {
        write_family(GROWTH, GROWTH_HELP, false, &mut out);
        for (g, t) in trends {
            write_sample(GROWTH, &ident_labels(g), &number(t.slope_per_s), &mut out);
        }
    }
    let full: Vec<_> = trends
        .iter()
        .filter_map(|(g, t)| t.time_to_full_s.map(|s| (g, s)))
        .collect();
    if !full.is_empty() {
        write_family(TIME_TO_FULL, TIME_TO_FULL_HELP, false, &mut out);
        for (g, s) in full {
            write_sample(TIME_TO_FULL, &ident_labels(g), &number(s), &mut out);
        }
    }
    out.into_bytes()
}

/// A value as Prometheus reads it: at most three decimals, no trailing zeros.
fn number(v: f64) -> String {
    if !v.is_finite() {
        return "NaN".into();
    }
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(i: u32) -> GpuIdent {
        GpuIdent {
            index: i,
            uuid: format!("GPU-{i}"),
            name: "H100 \"x\"".into(),
            pci_bus_id: String::new(),
        }
    }

    #[test]
    fn growth_for_every_trend_and_time_to_full_only_when_rising() {
        let (a, b) = (gpu(0), gpu(1));
        let rising = Trend {
            slope_per_s: 17_895_697.066_666,
            rising: true,
            rising_for_s: 300.0,
            time_to_full_s: Some(3600.5),
        };
        let flat = Trend {
            slope_per_s: -0.0001,
            rising: false,
            rising_for_s: 0.0,
            time_to_full_s: None,
        };
        let text = String::from_utf8(render(&[(&a, rising), (&b, flat)])).unwrap();
        assert!(text.contains(&format!("# TYPE {GROWTH} gauge\n")), "{text}");
        assert!(
            text.contains(&format!(
                "{GROWTH}{{gpu=\"0\",uuid=\"GPU-0\",name=\"H100 \\\"x\\\"\"}} 17895697.067\n"
            )),
            "{text}"
        );
        assert!(text.contains(&format!(
            "{GROWTH}{{gpu=\"1\",uuid=\"GPU-1\",name=\"H100 \\\"x\\\"\"}} 0\n"
        )));
        assert_eq!(text.matches(TIME_TO_FULL).count(), 3, "{text}");
        assert!(text.contains(&format!("{TIME_TO_FULL}{{gpu=\"0\",")));
        assert!(text.ends_with(" 3600.5\n"), "{text}");
        assert!(render(&[]).is_empty());
    }
}
