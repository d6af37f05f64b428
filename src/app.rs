//! What nvq does with parsed arguments.

use crate::cli::{self, Args};
use crate::error::NvqError;
use crate::fields::{self, QueryMode};
use crate::format::{Column, FormatSpec};
use crate::nvml::{select, Session};
use crate::output::looping::{self, Schedule};
use crate::output::{Sink, SinkMode};
use std::time::Duration;

/// A fully validated query, ready to run.
pub struct QueryPlan {
    pub mode: QueryMode,
    pub fields: Vec<usize>,
    pub format: FormatSpec,
    pub interval: Option<Duration>,
    pub count: Option<u64>,
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
        let interval = match (&args.loop_sec, &args.loop_ms) {
            (Some(_), Some(_)) => return Err(NvqError::InvalidCombination),
            (Some(s), None) => Some(cli::parse_loop_sec(s)?),
            (None, Some(ms)) => Some(cli::parse_loop_ms(ms)?),
            (None, None) => None,
        };
        let count = args.count.as_deref().map(cli::parse_count).transpose()?;
        if count.is_some() && interval.is_none() {
            return Err(NvqError::Usage(
                "--count needs a loop: add -l/--loop=SEC or -lms/--loop-ms=MS.".into(),
            ));
        }
        Ok(QueryPlan {
            mode,
            fields,
            format,
            interval,
            count,
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
    let mode = SinkMode::for_format(plan.format.kind.name());
    let mut sink = Sink::open_with(args.filename.as_deref(), mode)?;
    let mut fmt = plan.format.formatter();
    let schedule = Schedule {
        interval: plan.interval,
        count: plan.count,
    };
    // GPU handles are looked up once; every sample of a loop reuses them.
    let targets = fields::gpu::targets(&session, &devices);
    looping::run(schedule, &columns, fmt.as_mut(), &mut sink, || {
        Ok(match plan.mode {
            QueryMode::Gpu => fields::gpu::collect_targets(&session, &targets, count, &plan.fields),
            _ => Vec::new(),
        })
    })
}
