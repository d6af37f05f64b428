//! `-q` / `-a` / `--query`, with `-d`: the detail report, once or every
//! `-l`/`-lms` interval, to stdout or the `-f` file.

use super::loop_count;
use super::plan::Common;
use crate::cli::format::Format;
use crate::cli::Args;
use nvq_core::error::NvqError;
use nvq_core::model::report::{GpuReport, Node, Report, View};
use nvq_core::model::{NvmlCode, Value};
use nvq_core::nvml::Session;

use crate::schedule::deadline::PerGpu;
use crate::schedule::{self as looping, Flow, Schedule};
use nvq_core::render;
use nvq_core::source::gpu::GpuCtx;
use nvq_core::source::report::{self as source, Display, DISPLAY_NAMES};
use std::sync::Arc;

/// Does the command ask for the report (or its DTD)?
pub fn wanted(args: &Args) -> bool {
    args.query > 0 || args.display.is_some() || args.xml > 0 || args.dtd || args.unit
}

/// The `-d` types given (clap has checked them, in any case).
pub fn parse_display(types: &[String]) -> Result<Vec<Display>, NvqError> {
    types
        .iter()
        .map(|t| {
            DISPLAY_NAMES
                .iter()
                .find(|(_, name)| name.eq_ignore_ascii_case(t.trim()))
                .ok_or(NvqError::InvalidCombination)
                .and_then(|(d, name)| {
                    // A type whose sections nvq does not build yet is refused,
                    // not answered with an empty report.
                    if source::shows(*d) {
                        Ok(*d)
                    } else {
                        Err(NvqError::NotImplemented(format!("-d {name}")))
                    }
                })
        })
        .collect()
}

pub fn run(args: &Args, common: &Common<'_>) -> Result<(), NvqError> {
    if args.unit {
        return run_units(args, common);
    }
    // `--dtd` alone prints the DTD; everything else needs -q, and -d does
    // not go with -x (nvidia-smi's -h says so).
    let (query, xml) = (args.query > 0, args.xml > 0);
    let dtd_only = args.dtd && !query && !xml && args.display.is_none();
    // nvq's own `--format=json` is the one format the report takes.
    let json = match common.format {
        None => false,
        Some(Format::Json) if !args.dtd && args.xml == 0 => true,
        Some(_) => return Err(NvqError::InvalidCombination),
    };
    let conflicts = !args.queries.is_empty() || args.list_gpus;
    if conflicts || (!query && !dtd_only) || (xml && args.display.is_some()) {
        return Err(NvqError::InvalidCombination);
    }
    let view = if xml || dtd_only || json {
        View::Xml
    } else {
        View::Text
    };
    let show = match &args.display {
        Some(types) => parse_display(types)?,
        None => Vec::new(),
    };
    let interval = common.interval;
    let count = loop_count(common, interval)?;
    let mut sink = common.sink(crate::output::SinkMode::Append)?;
    let session = Arc::new(common.session()?);
    let devices = common.gpus(&session)?;
    let attached = session.device_count().unwrap_or(0);
    let workers = match interval {
        Some(_) => start_workers(&session, &devices, &show, view, attached),
        None => None,
    };
    let form = match view {
        View::Text => Form::Text,
        View::Xml if json => Form::Json,
        View::Xml if dtd_only => Form::DtdOnly,
        View::Xml => Form::Xml {
            version: render::report_xml::dtd_version(session.driver_major()),
            embed: args.dtd,
        },
    };
    struct Reports<'a> {
        session: &'a Session,
        devices: &'a [u32],
        show: &'a [Display],
        view: View,
        form: Form,
        reads: source::Reads,
        workers: Option<PerGpu<GpuReport>>,
        /// Each GPU's bus id, kept to label a late answer.
        last: Vec<String>,
    }
    impl looping::Samples for Reports<'_> {
        fn sample(&mut self, tick: &looping::Tick, buf: &mut Vec<u8>) -> Result<Flow, NvqError> {
            let report = match self.workers.as_mut() {
                Some(w) => {
                    let last = &self.last;
                    let gpus = w.sample(tick.deadline, |i| {
                        late(last.get(i).cloned().unwrap_or_default())
                    });
                    Report {
                        header: source::header(
                            self.session,
                            std::time::SystemTime::now(),
                            self.view,
                        ),
                        attached: self.session.device_count().unwrap_or(0),
                        gpus,
                        colon: source::colon_column(self.session.driver_major()),
                    }
                }
                None => {
                    let targets = nvq_core::source::targets(self.session, self.devices);
                    source::collect(self.session, &targets, self.show, self.view, self.reads)
                }
            };
            for (slot, g) in self.last.iter_mut().zip(&report.gpus) {
                if !g.bus_id.is_empty() {
                    slot.clone_from(&g.bus_id);
                }
            }
            match self.form {
                Form::Text => render::report::text(&report, buf),
                Form::Json => render::report_json::json(&report, buf),
                Form::Xml { version, embed } => {
                    let dtd = embed.then(|| render::report_xml::dtd(&report));
                    render::report_xml::xml(&report, version, dtd.as_deref(), buf);
                }
                Form::DtdOnly => {
                    buf.extend_from_slice(render::report_xml::dtd(&report).as_bytes());
                    return Ok(Flow::Stop);
                }
            }
            Ok(Flow::Continue)
        }
    }
    let mut reports = Reports {
        session: &session,
        devices: &devices,
        show: &show,
        view,
        form,
        reads: reads_from_env(),
        workers,
        last: vec![String::new(); devices.len()],
    };
    let schedule = Schedule {
        interval,
        count,
        deadline: None,
    };
    looping::drive(schedule, &mut sink, &mut reports).map(|_| ())
}

/// `NVQ_SERIAL_GPUS=1` reads the GPUs of a one-shot report one after
/// another instead of in parallel: for measuring what the parallel reads
/// save (`benches/report_bench.py`), not for use.
pub const SERIAL_ENV: &str = "NVQ_SERIAL_GPUS";

fn reads_from_env() -> source::Reads {
    match std::env::var_os(SERIAL_ENV) {
        Some(v) if v == "1" => source::Reads::Serial,
        _ => source::Reads::Parallel,
    }
}

/// What a sample is written as.
#[derive(Clone, Copy)]
enum Form {
    Text,
    /// nvq's JSON: the XML report's tree, typed, one line a sample.
    Json,
    /// One XML document a sample, naming DTD `version` or embedding one.
    Xml {
        version: Option<u32>,
        embed: bool,
    },
    /// `--dtd` alone: the DTD of the report, once.
    DtdOnly,
}

/// What a GPU that missed the sample's deadline shows: its bus id and one
/// `Timeout` line.
fn late(bus_id: String) -> GpuReport {
    GpuReport {
        bus_id,
        items: vec![Node::entry(
            "Error",
            "error",
            Value::err(NvmlCode::TIMEOUT),
            "",
        )],
    }
}

/// In a loop each GPU is read on its own lane under the loop deadline.
fn start_workers(
    session: &Arc<Session>,
    devices: &[u32],
    show: &[Display],
    view: View,
    attached: u32,
) -> Option<PerGpu<GpuReport>> {
    let jobs: Vec<_> = devices
        .iter()
        .map(|&index| {
            let session = Arc::clone(session);
            let show = show.to_vec();
            // The handle is looked up in the job, on a worker thread, under
            // the sample's deadline.
            move || source::gpu_report(&GpuCtx::new(&session, index, attached), &show, view)
        })
        .collect();
    PerGpu::start(jobs).ok()
}

/// `-q -u`: the S-class units' report, as text, XML or nvq's JSON, once or
/// every interval. `-d` does not go with it (nvidia-smi's -h says so), nor
/// does `--dtd` (nvq writes no unit DTD).
fn run_units(args: &Args, common: &Common<'_>) -> Result<(), NvqError> {
    let (query, xml) = (args.query > 0, args.xml > 0);
    let json = match common.format {
        None => false,
        Some(Format::Json) if !xml => true,
        Some(_) => return Err(NvqError::InvalidCombination),
    };
    let conflicts = !args.queries.is_empty() || args.list_gpus || args.display.is_some();
    if conflicts || !query {
        return Err(NvqError::InvalidCombination);
    }
    if args.dtd {
        return Err(NvqError::NotImplemented("--dtd -u".to_string()));
    }
    let view = if xml || json { View::Xml } else { View::Text };
    let interval = common.interval;
    let count = loop_count(common, interval)?;
    let mut sink = common.sink(crate::output::SinkMode::Append)?;
    let session = common.session()?;
    // When NVML cannot count the units nvidia-smi says so on stderr, prints
    // nothing else and exits 0 (NVIDIA's k8s-test-infra checks for this).
    let units = match source::unit::unit_count(&session) {
        Ok(n) => n,
        Err(code) => {
            use std::io::Write;
            let text = render::report::value_text(&Value::err(code), "");
            let line = format!("Unable to determine number of available units: {text}\n");
            let _ = std::io::stderr().write_all(line.as_bytes());
            return Ok(());
        }
    };
    let indices: Vec<u32> = match common.id {
        None => (0..units).collect(),
        Some(id) => id
            .split(',')
            .map(|w| match w.trim().parse::<u32>() {
                Ok(i) if i < units => Ok(i),
                _ => Err(NvqError::NoDevices),
            })
            .collect::<Result<_, _>>()?,
    };
    let version = render::report_xml::dtd_version(session.driver_major());
    struct Units<'a> {
        session: &'a Session,
        indices: &'a [u32],
        view: View,
        xml: bool,
        json: bool,
        version: Option<u32>,
    }
    impl looping::Samples for Units<'_> {
        fn sample(&mut self, _: &looping::Tick, buf: &mut Vec<u8>) -> Result<Flow, NvqError> {
            let r = source::unit::collect(self.session, self.indices, self.view);
            if self.json {
                render::report_unit::json(&r, buf);
            } else if self.xml {
                render::report_unit::xml(&r, self.version, buf);
            } else {
                render::report_unit::text(&r, buf);
            }
            Ok(Flow::Continue)
        }
    }
    let mut samples = Units {
        session: &session,
        indices: &indices,
        view,
        xml,
        json,
        version,
    };
    let schedule = Schedule {
        interval,
        count,
        deadline: None,
    };
    looping::drive(schedule, &mut sink, &mut samples).map(|_| ())
}
