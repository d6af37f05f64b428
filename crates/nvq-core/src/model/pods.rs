//! Which Kubernetes containers hold which GPUs (`nvq serve --collect.pods`),
//! and how well nvq knows it: what `source::pods` reads from the kubelet's
//! pod-resources API and the exporter turns into `pod`, `namespace` and
//! `container` labels and health series.

use std::collections::BTreeMap;

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
    devices: BTreeMap<String, Vec<PodRef>>,
    /// How many devices (GPUs and MIG devices) the kubelet listed as held.
    held: usize,
}

impl PodMap {
    /// Note that `holder` holds `device` (a GPU's UUID or index).
    pub fn insert(&mut self, device: &str, holder: PodRef) {
        self.held += 1;
        let list = self.devices.entry(device.to_string()).or_default();
        if !list.contains(&holder) {
            list.push(holder);
            list.sort();
        }
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

/// The labels for a GPU held by `holders`: `pod`, `namespace`, `container`
/// (dcgm-exporter's names). A GPU shared by several containers (MIG
/// devices, time-slicing) gets each label's distinct values, sorted and
/// joined by commas; a GPU nobody holds gets none.
pub fn pod_labels(holders: &[&PodRef]) -> Vec<(&'static str, String)> {
    if holders.is_empty() {
        return Vec::new();
    }
    let join = |f: fn(&PodRef) -> &str| {
        let mut v: Vec<&str> = holders.iter().map(|h| f(h)).collect();
        v.sort_unstable();
        v.dedup();
        v.join(",")
    };
    vec![
        ("pod", join(|h| &h.pod)),
        ("namespace", join(|h| &h.namespace)),
        ("container", join(|h| &h.container)),
    ]
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
}
