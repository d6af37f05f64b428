//! What names a column: a catalogue [`Fact`], a typed list-mode field, or
//! plain text (a statistic, a monitor's metric). Code that looks a value up
//! names it by id; the names are for the wire and the headers.

use super::fact::Fact;

/// The id of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnId {
    /// A catalogue fact (every `--query-gpu` field is one).
    Fact(Fact),
    /// A list mode's own field, or one of its GPU columns.
    List(ListField),
    /// A column no typed id names (a statistic's name, a metric's).
    Text(&'static str),
}

impl ColumnId {
    /// The canonical name: the fact's, the list field's, or the text.
    pub fn name(self) -> &'static str {
        match self {
            ColumnId::Fact(f) => f.name(),
            ColumnId::List(l) => l.name(),
            ColumnId::Text(t) => t,
        }
    }
}

impl From<Fact> for ColumnId {
    fn from(f: Fact) -> Self {
        ColumnId::Fact(f)
    }
}

impl From<ListField> for ColumnId {
    fn from(l: ListField) -> Self {
        ColumnId::List(l)
    }
}

/// A list-mode field: one of the GPU columns every list mode starts with, or
/// a mode's own field. Its description (unit, help) sits beside its reader in
/// the mode's file; [`ListField::name`] is the canonical name the mode prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ListField {
    /// `timestamp`: when the GPU was sampled.
    Timestamp,
    /// `gpu_name`
    GpuName,
    /// `gpu_bus_id`
    GpuBusId,
    /// `gpu_serial`
    GpuSerial,
    /// `gpu_uuid`
    GpuUuid,
    /// `gpu_index`
    GpuIndex,
    /// `pid`
    Pid,
    /// `process_name`
    ProcessName,
    /// `used_gpu_memory`
    UsedGpuMemory,
    /// `used_gpu_memory.percent`
    UsedGpuMemoryPercent,
    /// `local_pid`
    LocalPid,
    /// `user`
    User,
    /// `command_line`
    CommandLine,
    /// `container_id`
    ContainerId,
    /// `pod_uid`
    PodUid,
    /// `vgpu_instance`
    VgpuInstance,
    /// `gpu_utilization`
    GpuUtilization,
    /// `mem_utilization`
    MemUtilization,
    /// `max_memory_usage`
    MaxMemoryUsage,
    /// `time`
    Time,
    /// `retired_pages.address`
    RetiredPagesAddress,
    /// `retired_pages.timestamp`
    RetiredPagesTimestamp,
    /// `retired_pages.cause`
    RetiredPagesCause,
    /// `memory`: a supported memory clock.
    Memory,
    /// `graphics`: a supported graphics clock.
    Graphics,
}

impl ListField {
    /// The field as a column id.
    pub const fn id(self) -> ColumnId {
        ColumnId::List(self)
    }

    /// The field's canonical name (the CSV header, the JSON key).
    pub const fn name(self) -> &'static str {
        match self {
            ListField::Timestamp => "timestamp",
            ListField::GpuName => "gpu_name",
            ListField::GpuBusId => "gpu_bus_id",
            ListField::GpuSerial => "gpu_serial",
            ListField::GpuUuid => "gpu_uuid",
            ListField::GpuIndex => "gpu_index",
            ListField::Pid => "pid",
            ListField::ProcessName => "process_name",
            ListField::UsedGpuMemory => "used_gpu_memory",
            ListField::UsedGpuMemoryPercent => "used_gpu_memory.percent",
            ListField::LocalPid => "local_pid",
            ListField::User => "user",
            ListField::CommandLine => "command_line",
            ListField::ContainerId => "container_id",
            ListField::PodUid => "pod_uid",
            ListField::VgpuInstance => "vgpu_instance",
            ListField::GpuUtilization => "gpu_utilization",
            ListField::MemUtilization => "mem_utilization",
            ListField::MaxMemoryUsage => "max_memory_usage",
            ListField::Time => "time",
            ListField::RetiredPagesAddress => "retired_pages.address",
            ListField::RetiredPagesTimestamp => "retired_pages.timestamp",
            ListField::RetiredPagesCause => "retired_pages.cause",
            ListField::Memory => "memory",
            ListField::Graphics => "graphics",
        }
    }
}
