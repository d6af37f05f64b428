//! What `nvq top --hosts` reads of a node: its GPUs and their processes as
//! [`GpuSnap`] and [`ProcSnap`], from two queries of its `/api/v1/query`
//! (`--query-gpu` and `--query-compute-apps`) under one deadline.
//!
//! A node gives what its own nvq knows: a process's user and command line
//! come from the node's `/proc` (the `user` and `command_line` fields). It
//! gives no PCIe rates, MIG devices, process kinds other than compute,
//! per-process SM use or host CPU and memory: those show as unknown (`-`).

use super::{read_on, Conn, Failure};
use nvq_core::model::top::{GpuSnap, Health, ProcSnap};
use nvq_core::model::{ColumnId, Fact, ListField, Row, Value};
use nvq_core::source::QueryMode;
use std::sync::Arc;
use std::time::Instant;

/// Where a node's cell goes in a [`GpuSnap`].
type Put = fn(&mut GpuSnap, Option<&Value>);

/// The `--query-gpu` fields read, in this order, each with where its cell goes.
const GPU_FIELDS: [(Fact, Put); 11] = [
    (Fact::MemoryUsed, |g, v| g.mem_used = bytes(v)),
    (Fact::MemoryTotal, |g, v| g.mem_total = bytes(v)),
    // A unified-memory GPU's memory is the system's, marked.
    (Fact::MemoryDerived, |g, v| {
        g.mem_derived = matches!(v, Some(Value::Text(t)) if t == "Yes")
    }),
    (Fact::UtilizationGpu, |g, v| g.util_gpu = number(v)),
    (Fact::UtilizationMemory, |g, v| g.util_mem = number(v)),
    (Fact::TemperatureGpu, |g, v| g.temp_c = number(v)),
    (Fact::PowerDraw, |g, v| g.power_w = number(v)),
    (Fact::PowerLimit, |g, v| g.power_limit_w = number(v)),
    (Fact::ClocksCurrentSm, |g, v| g.clock_sm_mhz = number(v)),
    (Fact::ClocksCurrentMemory, |g, v| {
        g.clock_mem_mhz = number(v)
    }),
    (Fact::FanSpeed, |g, v| g.fan_pct = number(v)),
];

/// The `--query-compute-apps` fields read, in this order.
const PROC_FIELDS: [ListField; 5] = [
    ListField::Pid,
    ListField::UsedGpuMemory,
    ListField::User,
    ListField::CommandLine,
    ListField::ProcessName,
];

/// The canonical names of the fields `ids` (what the API is asked for and
/// answers), in order.
fn names<const N: usize>(ids: [impl Into<ColumnId>; N]) -> Vec<&'static str> {
    ids.into_iter().map(|id| id.into().name()).collect()
}

/// The fields read of a node, by canonical name: `--query-gpu`'s and
/// `--query-compute-apps`'s.
pub fn field_names() -> (Vec<&'static str>, Vec<&'static str>) {
    (names(GPU_FIELDS.map(|(f, _)| f)), names(PROC_FIELDS))
}

/// A node's GPUs (in its index order) and their processes, by `deadline`,
/// on its kept connection.
/// The GPUs of the node that missed its own deadline are [`Health::Late`]
/// (named as last known, from `known`).
pub fn read_top(
    conn: &mut Conn,
    deadline: Instant,
    known: &[GpuSnap],
) -> Result<NodeRead, Failure> {
    let name: Arc<str> = Arc::from(conn.host().name.as_str());
    let gpu_fields = names(GPU_FIELDS.map(|(f, _)| f));
    let (rows, late) = read_on(conn, QueryMode::GPU.option(), &gpu_fields, deadline)?;
    let mut gpus: Vec<GpuSnap> = rows.iter().filter_map(|r| gpu(&name, r)).collect();
    for index in late {
        let k = known.iter().find(|g| g.index == index);
        let (uuid, gname) = k.map_or_else(Default::default, |g| {
            (Arc::clone(&g.uuid), Arc::clone(&g.name))
        });
        let mut g = GpuSnap::unknown(index, uuid, gname, Health::Late);
        g.host = Arc::clone(&name);
        gpus.push(g);
    }
    gpus.sort_by_key(|g| g.index);
    let proc_fields = names(PROC_FIELDS);
    let (rows, no_processes) = match read_on(
        conn,
        QueryMode::COMPUTE_APPS.option(),
        &proc_fields,
        deadline,
    ) {
        Ok((rows, _)) => (rows, None),
        // An exporter without a process list: the GPUs still show.
        Err(Failure::NoProcesses(exporter)) => (Vec::new(), Some(exporter)),
        Err(f) => return Err(f),
    };
    let procs = rows
        .iter()
        .filter_map(|r| process(&name, r, &gpus))
        .collect();
    Ok(NodeRead {
        gpus,
        procs,
        no_processes,
    })
}

/// What [`read_top`] read of a node.
pub struct NodeRead {
    /// Its GPUs, in its index order.
    pub gpus: Vec<GpuSnap>,
    /// Their processes.
    pub procs: Vec<ProcSnap>,
    /// The node's exporter, when it lists no processes (`dcgm-exporter`).
    pub no_processes: Option<&'static str>,
}

/// A number a cell holds, in the field's unit (bytes for a size).
fn number(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Int(i) => Some(*i as f64),
        Value::Float { value, .. } if value.is_finite() => Some(*value),
        Value::Bytes(b) => Some(*b as f64),
        _ => None,
    }
}

fn bytes(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::Bytes(b) => Some(*b),
        _ => None,
    }
}

fn text(v: Option<&Value>) -> Option<Arc<str>> {
    match v? {
        Value::Text(t) if !t.is_empty() => Some(Arc::from(t.as_str())),
        _ => None,
    }
}

/// A `--query-gpu` row of [`GPU_FIELDS`] as a GPU of `host`.
fn gpu(host: &Arc<str>, r: &Row) -> Option<GpuSnap> {
    let id = r.gpu.as_deref()?;
    let mut g = GpuSnap::unknown(
        id.index,
        Arc::from(id.uuid.as_str()),
        Arc::from(id.name.as_str()),
        Health::Fresh,
    );
    g.host = Arc::clone(host);
    for (k, (_, put)) in GPU_FIELDS.iter().enumerate() {
        put(&mut g, r.cells.get(k));
    }
    Some(g)
}

/// A `--query-compute-apps` row of [`PROC_FIELDS`] as a process of `host`
/// on one of its `gpus`.
fn process(host: &Arc<str>, r: &Row, gpus: &[GpuSnap]) -> Option<ProcSnap> {
    let id = r.gpu.as_deref()?;
    let c = |i: usize| r.cells.get(i);
    let pid = match c(0)? {
        Value::Int(p) => u32::try_from(*p).ok()?,
        _ => return None,
    };
    let gpu_uuid = gpus
        .iter()
        .find(|g| g.index == id.index)
        .map_or_else(|| Arc::from(id.uuid.as_str()), |g| Arc::clone(&g.uuid));
    let command = text(c(3))
        .or_else(|| text(c(4)))
        .unwrap_or_else(|| Arc::from("?"));
    Some(ProcSnap {
        host: Arc::clone(host),
        gpu: id.index,
        gpu_uuid,
        pid,
        kind: "C",
        user: text(c(2)),
        gpu_mem: bytes(c(1)),
        command,
        ..ProcSnap::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_asked_for_is_one_the_api_knows() {
        let asked = [
            (QueryMode::GPU, names(GPU_FIELDS.map(|(f, _)| f))),
            (QueryMode::COMPUTE_APPS, names(PROC_FIELDS)),
        ];
        for (mode, names) in asked {
            for n in names {
                let i = mode.lookup(n);
                assert!(i.is_some() && mode.fields()[i.unwrap()].name == n, "{n}");
            }
        }
    }
}
