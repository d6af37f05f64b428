//! What nvq does with parsed arguments.

use crate::cli::{self, Args};
use crate::error::NvqError;
use crate::fields::{self, QueryMode};
use crate::filter::{self, Script, Verdict};
use crate::format::{Column, FormatSpec};
use crate::nvml::{select, Session};
use crate::output::looping::{self, End, Flow, Schedule};
use crate::output::Sink;
use std::time::Duration;

/// A fully validated query, ready to run.
pub struct QueryPlan {
    pub mode: QueryMode,
    pub fields: Vec<usize>,
    pub format: FormatSpec,
    pub interval: Option<Duration>,
    pub count: Option<u64>,
    /// `--where`, `--assert`, `--until`, `--summary`.
    pub script: Script,
}

impl QueryPlan {
    /// Validate everything about a query before NVML is touched.
    pub fn from_args(args: &Args, mode: QueryMode, list: &str) -> Result<Self, NvqError> {
        let fields = mode.resolve(list)?;
        let format = match args.format.as_deref() {
            Some(f) => FormatSpec::parse(f)?,
            None => {
                return Err(NvqError::Usage(format!(
                    "--{} needs --format=csv[,noheader][,nounits].",
                    mode.option()
                )))
            }
        };
        let script = Script::new(mode, &fields, args.script_flags())?;
        let interval = match (&args.loop_sec, &args.loop_ms) {
            (Some(_), Some(_)) => return Err(NvqError::InvalidCombination),
            (Some(s), None) => Some(cli::parse_loop_sec(s)?),
            (None, Some(ms)) => Some(cli::parse_loop_ms(ms)?),
            (None, None) if script.needs_loop() => Some(filter::script::UNTIL_DEFAULT_INTERVAL),
            (None, None) => None,
        };
        let count = args.count.as_deref().map(cli::parse_count).transpose()?;
        Ok(QueryPlan {
            mode,
            fields,
            format,
            interval,
            count,
            script,
        })
    }
}

/// Run nvq. Output goes to stdout or the `-f` file; the caller prints errors.
pub fn run(args: &Args) -> Result<(), NvqError> {
    if let Some(mode) = args.help_query() {
        let mut sink = Sink::stdout();
        return sink.write(fields::help::render(mode).as_bytes());
    }
    let queries = args.queries();
    if queries.len() > 1 {
        return Err(NvqError::InvalidCombination);
    }
    if let Some(&(mode, list)) = queries.first() {
        let plan = QueryPlan::from_args(args, mode, list)?;
        return run_query(args, &plan);
    }
    if args.format.is_some() {
        return Err(NvqError::InvalidCombination);
    }
    Err(NvqError::Usage(
        "nothing to do: give a --query-* option (see nvq --help).".into(),
    ))
}

fn run_query(args: &Args, plan: &QueryPlan) -> Result<(), NvqError> {
    let session = Session::open(&args.lib_source())?;
    let devices = select::select(&session, args.id.as_deref())?;
    let count = session.device_count().unwrap_or(0);
    let major = session.driver_major();
    let infos = plan.mode.fields();
    let columns: Vec<Column> = plan
        .fields
        .iter()
        .filter_map(|&i| infos.get(i))
        .map(|f| Column {
            name: f.name,
            header_name: f.header_name(major),
            unit: f.unit,
        })
        .collect();
    let mut sink = Sink::open(args.filename.as_deref())?;
    let mut fmt = plan.format.formatter();
    let schedule = Schedule {
        interval: plan.interval,
        count: plan.count,
        deadline: plan.script.timeout,
    };
    let mut script = plan.script.clone();
    let mut failed = None;
    let end = looping::run_with(schedule, &columns, fmt.as_mut(), &mut sink, || {
        let (rows, gpus) = match plan.mode {
            QueryMode::Gpu => (
                fields::gpu::collect(&session, &devices, count, script.read()),
                Some(devices.as_slice()),
            ),
            _ => (Vec::new(), None),
        };
        let (rows, verdict) = script.sample(rows, gpus);
        let flow = match verdict {
            Verdict::Continue => Flow::Continue,
            Verdict::UntilMet => Flow::Stop,
            Verdict::AssertFailed(msg) => {
                failed = Some(msg);
                Flow::Stop
            }
        };
        Ok((rows, flow))
    })?;
    if let Some(summary) = &script.summary {
        let cols = filter::Summary::columns(&columns);
        let mut buf = b"\n".to_vec();
        let mut fmt = plan.format.formatter();
        fmt.begin(&cols, &mut buf);
        fmt.sample(&cols, &summary.rows(), &mut buf);
        fmt.finish(&cols, &mut buf);
        sink.write(&buf)?;
    }
    if let Some(msg) = failed {
        return Err(NvqError::AssertFailed(msg));
    }
    match (end, &script.until, script.timeout) {
        (End::Deadline, Some(_), Some(_)) => Err(script.until_missed(&format!(
            "within --timeout {}",
            args.timeout.as_deref().unwrap_or_default().trim()
        ))),
        (End::Count, Some(_), _) => Err(script.until_missed(&format!(
            "within --count {} samples",
            plan.count.unwrap_or_default()
        ))),
        _ => Ok(()),
    }
}
