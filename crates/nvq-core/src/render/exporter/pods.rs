//! The health series of pod attribution (`nvq serve --collect.pods`).
//! Pure: health in, exposition out.

use crate::model::pods::PodHealth;
use crate::render::prometheus::write_single;

/// `nvq_pods_*`: whether the kubelet answered, how often it did not, when
/// it last did, and how many devices it listed as held.
pub fn render_health(h: &PodHealth, out: &mut Vec<u8>) {
    let mut text = String::new();
    let mut one = |name: &str, help: &str, counter: bool, value: String| {
        write_single(name, help, counter, &value, &mut text);
    };
    one(
        "nvq_pods_attribution_success",
        "Whether the last query of the kubelet's pod-resources API answered in time (1) or not (0); labels \
         stay as last known.",
        false,
        u8::from(h.ok).to_string(),
    );
    one(
        "nvq_pods_attribution_failures_total",
        "Queries of the kubelet's pod-resources API that failed (no socket, timeout, error, garbage).",
        true,
        h.failures.to_string(),
    );
    if let Some(t) = h.last_success_unix {
        one(
            "nvq_pods_attribution_last_success_timestamp_seconds",
            "When a query of the kubelet's pod-resources API last succeeded, in Unix seconds.",
            false,
            format!("{t:.3}"),
        );
    }
    one(
        "nvq_pods_attributed_devices",
        "GPU and MIG devices the kubelet's last answer listed as held by a container.",
        false,
        h.devices.to_string(),
    );
    out.extend_from_slice(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn health_series() {
        let h = PodHealth {
            ok: false,
            failures: 3,
            last_success_unix: Some(1700000000.5),
            devices: 2,
        };
        let text = crate::render::written(|out| render_health(&h, out));
        for line in [
            "nvq_pods_attribution_success 0",
            "nvq_pods_attribution_failures_total 3",
            "nvq_pods_attribution_last_success_timestamp_seconds 1700000000.500",
            "nvq_pods_attributed_devices 2",
            "# TYPE nvq_pods_attribution_failures_total counter",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
        }
        let text = crate::render::written(|out| render_health(&PodHealth::default(), out));
        assert!(!text.contains("last_success"), "{text}");
    }
}
