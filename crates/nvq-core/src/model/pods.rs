//! Which Kubernetes containers hold which GPUs (`nvq serve --collect.pods`),
//! and how well nvq knows it: what `source::pods` reads from the kubelet's
//! pod-resources API and the exporter turns into `pod`, `namespace` and
//! `container` labels and health series.

use std::collections::{BTreeMap, BTreeSet};

/// The labels pod attribution adds to a GPU's or a process's series:
/// dcgm-exporter's `pod`, `namespace`, `container`, and `pod_uid` from a
/// process's cgroup path when the kubelet does not answer.
pub const LABELS: [&str; 4] = ["pod", "namespace", "container", "pod_uid"];

/// One container that holds a device.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PodRef {
    /// The pod's Kubernetes namespace.
    pub namespace: String,
    /// The pod's name.
    pub pod: String,
    /// The container's name within the pod.
    pub container: String,
}

/// Device → the containers that hold it. A device is named as the device
/// plugin names it: a GPU UUID (`GPU-…`), or its NVML index (`0`); a MIG
/// device is already resolved to its parent GPU's UUID by the source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodMap {
    devices: BTreeMap<String, BTreeSet<PodRef>>,
    /// How many devices (GPUs and MIG devices) the kubelet listed as held.
    held: usize,
}

impl PodMap {
    /// Note that `holder` holds `device` (a GPU's UUID or index).
    pub fn insert(&mut self, device: &str, holder: PodRef) {
        self.held += 1;
        // A set: 10,000 time-slicing replicas of one GPU cost 10,000
        // inserts of a logarithm each, not a search and a sort each.
        self.devices
            .entry(device.to_string())
            .or_default()
            .insert(holder);
    }

    /// How many devices the kubelet listed as held by a container.
    pub fn held(&self) -> usize {
        self.held
    }

    /// The containers holding the GPU with this UUID or index, in order,
    /// each once.
    pub fn holders(&self, uuid: &str, index: u32) -> Vec<&PodRef> {
        let mut all: Vec<&PodRef> = [uuid.to_string(), index.to_string()]
            .iter()
            .filter_map(|k| self.devices.get(k))
            .flatten()
            .collect();
        all.sort();
        all.dedup();
        all
    }
}

/// The most names a joined label value lists ([`join_bounded`]).
pub const MAX_JOINED: usize = 16;

/// The most bytes a joined label value holds, its `+N more` included.
pub const MAX_JOINED_BYTES: usize = 1024;

/// The labels for a GPU held by `holders`: `pod`, `namespace`, `container`
/// (dcgm-exporter's names). A GPU shared by several containers (MIG
/// devices, time-slicing) gets each label's distinct values, sorted and
/// joined by commas, within [`join_bounded`]'s bounds; a GPU nobody holds
/// gets none.
pub fn pod_labels(holders: &[&PodRef]) -> Vec<(&'static str, String)> {
    if holders.is_empty() {
        return Vec::new();
    }
    let join = |f: fn(&PodRef) -> &str| join_bounded(holders.iter().map(|h| f(h)).collect());
    vec![
        ("pod", join(|h| &h.pod)),
        ("namespace", join(|h| &h.namespace)),
        ("container", join(|h| &h.container)),
    ]
}

/// One label value for many names (the pods sharing a GPU, their `pod_uid`s):
/// the distinct names, sorted, joined by commas; at most [`MAX_JOINED`] of
/// them and [`MAX_JOINED_BYTES`] in all, the rest counted in a last
/// `+N more` (a Kubernetes name never holds `+` or a space). A GPU shared by
/// 10,000 pods gets one label of about 200 bytes, not one of 340 KB on each
/// of its series.
pub fn join_bounded(mut names: Vec<&str>) -> String {
    names.sort_unstable();
    names.dedup();
    let mut out = String::new();
    for (shown, name) in names.iter().enumerate() {
        let left = names.len() - shown;
        // Room for this name, and for the note of those after it.
        let note = if left > 1 {
            format!(",+{} more", left - 1).len()
        } else {
            0
        };
        let sep = usize::from(!out.is_empty());
        if shown == MAX_JOINED || out.len() + sep + name.len() + note > MAX_JOINED_BYTES {
            if !out.is_empty() {
                out.push(',');
            }
            out.push_str(&format!("+{left} more"));
            return out;
        }
        if sep == 1 {
            out.push(',');
        }
        out.push_str(name);
    }
    out
}

/// How pod attribution is going, for the health series.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PodHealth {
    /// The last query of the kubelet answered, in time.
    pub ok: bool,
    /// Queries that failed (no socket, a timeout, an error, garbage).
    pub failures: u64,
    /// When a query last succeeded (Unix seconds).
    pub last_success_unix: Option<f64>,
    /// Devices the last successful answer listed as held by containers.
    pub devices: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(ns: &str, pod: &str, c: &str) -> PodRef {
        PodRef {
            namespace: ns.into(),
            pod: pod.into(),
            container: c.into(),
        }
    }

    /// The labels `pod_labels` should give, in its order.
    fn labels(pod: &str, namespace: &str, container: &str) -> Vec<(&'static str, String)> {
        vec![
            ("pod", pod.to_string()),
            ("namespace", namespace.to_string()),
            ("container", container.to_string()),
        ]
    }

    #[test]
    fn one_holder_gives_its_labels() {
        let mut m = PodMap::default();
        m.insert("GPU-a", r("ml", "train-0", "trainer"));
        let h = m.holders("GPU-a", 0);
        assert_eq!(pod_labels(&h), labels("train-0", "ml", "trainer"));
        assert!(m.holders("GPU-b", 1).is_empty());
        assert!(pod_labels(&m.holders("GPU-b", 1)).is_empty());
    }

    #[test]
    fn shared_gpu_joins_distinct_values_and_index_ids_count() {
        let mut m = PodMap::default();
        m.insert("GPU-a", r("ml", "b", "x"));
        m.insert("GPU-a", r("ml", "a", "x"));
        m.insert("1", r("web", "c", "y"));
        // Twice the same holder (two MIG devices of one container).
        m.insert("GPU-a", r("ml", "a", "x"));
        assert_eq!(m.held(), 4);
        let h = m.holders("GPU-a", 1);
        assert_eq!(h.len(), 3);
        assert_eq!(pod_labels(&h), labels("a,b,c", "ml,web", "x,y"));
    }

    #[test]
    fn a_join_keeps_to_its_bounds_and_counts_the_rest() {
        let many: Vec<String> = (0..10_000).map(|i| format!("infer-{i:05}")).collect();
        let joined = join_bounded(many.iter().map(String::as_str).collect());
        let names: Vec<&str> = joined.split(',').collect();
        assert_eq!(names.len(), MAX_JOINED + 1, "{joined}");
        assert_eq!(names[0], "infer-00000");
        assert_eq!(names[MAX_JOINED], format!("+{} more", 10_000 - MAX_JOINED));
        // Long names: the byte bound comes first.
        let long: Vec<String> = (0..40)
            .map(|i| format!("{i:02}{}", "x".repeat(250)))
            .collect();
        let joined = join_bounded(long.iter().map(String::as_str).collect());
        assert!(joined.len() <= MAX_JOINED_BYTES, "{}", joined.len());
        assert!(joined.ends_with(",+36 more"), "{joined}");
        // One name longer than the bound: only the count.
        let huge = "y".repeat(2000);
        assert_eq!(join_bounded(vec![huge.as_str()]), "+1 more");
        // Within the bounds: all, once each, sorted.
        assert_eq!(join_bounded(vec!["b", "a", "b"]), "a,b");
        let exactly: Vec<String> = (0..MAX_JOINED).map(|i| format!("p{i:02}")).collect();
        let joined = join_bounded(exactly.iter().map(String::as_str).collect());
        assert_eq!(joined.split(',').count(), MAX_JOINED);
        assert!(!joined.contains("more"));
    }
}
