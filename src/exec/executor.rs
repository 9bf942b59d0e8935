//! `Executor`: lookup, argument validation, the handler under a timeout and a
//! concurrency limit, cancellation, caught panics, one tracing span per call.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt as _;
use rmcp::model::{CallToolResult, ContentBlock};
use tokio::sync::Semaphore;
use tracing::Instrument as _;

use super::error::ExecError;
use crate::core::{JsonObject, ToolCall, echo};
use crate::registry::{RegisteredTool, ToolContext, ToolRegistry};

/// Limits the executor applies to every call.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExecutorConfig {
    /// How long a handler may run unless its tool sets its own timeout.
    pub default_timeout: Duration,
    /// How many handlers may run at once; further calls wait for a slot.
    pub max_concurrent: usize,
}

impl Default for ExecutorConfig {
    fn default() -> Self {
        Self {
            default_timeout: Duration::from_secs(60),
            max_concurrent: 256,
        }
    }
}

impl ExecutorConfig {
    /// Sets the default per-call timeout.
    pub fn with_default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout;
        self
    }

    /// Sets the number of handlers that may run at once (at least 1).
    pub fn with_max_concurrent(mut self, n: usize) -> Self {
        self.max_concurrent = n.max(1);
        self
    }
}

/// How a call ended, as recorded on its tracing span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallOutcome {
    /// The handler returned a result (which may itself be an `isError` result).
    Completed,
    /// The handler returned an error.
    HandlerError,
    /// The arguments did not match the input schema.
    InvalidArguments,
    /// The tool is known by its schema alone.
    NoHandler,
    /// The handler ran past its timeout.
    TimedOut,
    /// The call was cancelled.
    Cancelled,
    /// The handler panicked.
    Panicked,
}

impl CallOutcome {
    /// A short lowercase label.
    pub fn as_str(self) -> &'static str {
        match self {
            CallOutcome::Completed => "completed",
            CallOutcome::HandlerError => "handler_error",
            CallOutcome::InvalidArguments => "invalid_arguments",
            CallOutcome::NoHandler => "no_handler",
            CallOutcome::TimedOut => "timed_out",
            CallOutcome::Cancelled => "cancelled",
            CallOutcome::Panicked => "panicked",
        }
    }
}

/// Runs tool calls against a registry. Cheap to clone: clones share the
/// concurrency limit.
#[derive(Debug, Clone)]
pub struct Executor {
    registry: Arc<ToolRegistry>,
    config: Arc<ExecutorConfig>,
    permits: Arc<Semaphore>,
}

impl Executor {
    /// An executor over `registry`.
    pub fn new(registry: Arc<ToolRegistry>, config: ExecutorConfig) -> Self {
        let permits = Arc::new(Semaphore::new(config.max_concurrent.max(1)));
        Self {
            registry,
            config: Arc::new(config),
            permits,
        }
    }

    /// The registry calls are looked up in.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.registry
    }

    /// The limits in force.
    pub fn config(&self) -> &ExecutorConfig {
        &self.config
    }

    /// Runs a call found in a model stream. An unknown tool gives an `isError`
    /// result naming the closest registered tools.
    pub async fn execute(&self, call: &ToolCall) -> CallToolResult {
        let ctx = ToolContext::new(call.id.clone(), call.name.clone());
        self.execute_with(&call.name, call.arguments.clone(), ctx)
            .await
    }

    /// Runs a call with a caller-built context (its cancellation token and
    /// client). An unknown tool gives an `isError` result.
    pub async fn execute_with(
        &self,
        name: &str,
        args: JsonObject,
        ctx: ToolContext,
    ) -> CallToolResult {
        match self.try_execute(name, args, ctx).await {
            Ok(result) => result,
            Err(e) => {
                tracing::info!(tool = %echo(name), "call of unknown tool");
                error_result(e.to_string())
            }
        }
    }

    /// Runs a call; the only error is a tool that is not registered (the MCP
    /// server answers that with a protocol error). Dropping the returned future
    /// cancels the call's token and stops the handler.
    pub async fn try_execute(
        &self,
        name: &str,
        args: JsonObject,
        ctx: ToolContext,
    ) -> Result<CallToolResult, ExecError> {
        let Some(tool) = self.registry.get(name) else {
            return Err(ExecError::UnknownTool {
                name: name.to_owned(),
                suggestions: self.registry.suggest(name),
            });
        };
        let span = tracing::info_span!(
            "tool_call",
            tool = %name,
            call_id = %ctx.call_id(),
            duration_us = tracing::field::Empty,
            outcome = tracing::field::Empty,
        );
        let started = Instant::now();
        let (result, outcome) = self.run(&tool, args, ctx).instrument(span.clone()).await;
        span.record("duration_us", started.elapsed().as_micros() as u64);
        span.record("outcome", outcome.as_str());
        Ok(result)
    }

    async fn run(
        &self,
        tool: &RegisteredTool,
        args: JsonObject,
        ctx: ToolContext,
    ) -> (CallToolResult, CallOutcome) {
        let name = tool.name();
        let Some(handler) = tool.handler().cloned() else {
            return (
                error_result(format!(
                    "tool `{name}` has no handler registered: it is known by its schema only"
                )),
                CallOutcome::NoHandler,
            );
        };
        let (args, verdict) = tool.validator().validate(args);
        if let Err(reason) = verdict {
            return (
                error_result(format!("invalid arguments for tool `{name}`: {reason}")),
                CallOutcome::InvalidArguments,
            );
        }
        let cancel = ctx.cancellation().clone();
        // Whatever way this future ends (result, timeout, or being dropped), the
        // call's token is cancelled so work the handler spawned stops too.
        let _cancel_on_exit = cancel.clone().drop_guard();
        let _permit = tokio::select! {
            biased;
            _ = cancel.cancelled() => return (cancelled_result(name), CallOutcome::Cancelled),
            permit = self.permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => return (error_result("the executor is shut down"), CallOutcome::Cancelled),
            },
        };
        let timeout = tool.timeout().unwrap_or(self.config.default_timeout);
        let handler_run = AssertUnwindSafe(handler.call(args, ctx)).catch_unwind();
        tokio::select! {
            biased;
            _ = cancel.cancelled() => (cancelled_result(name), CallOutcome::Cancelled),
            ended = tokio::time::timeout(timeout, handler_run) => match ended {
                Err(_elapsed) => (
                    error_result(format!(
                        "tool `{name}` timed out after {}",
                        format_duration(timeout)
                    )),
                    CallOutcome::TimedOut,
                ),
                Ok(Err(panic)) => {
                    let message = panic_message(panic.as_ref());
                    tracing::error!(tool = %name, panic = %message, "tool handler panicked");
                    (
                        error_result(format!("tool `{name}` failed: the handler panicked: {message}")),
                        CallOutcome::Panicked,
                    )
                }
                Ok(Ok(Err(e))) => (error_result(e.message().to_owned()), CallOutcome::HandlerError),
                Ok(Ok(Ok(result))) => match check_output(tool, &result) {
                    Ok(()) => (result, CallOutcome::Completed),
                    Err(reason) => (
                        error_result(format!(
                            "tool `{name}` returned a result that breaks its outputSchema: {reason}"
                        )),
                        CallOutcome::HandlerError,
                    ),
                },
            },
        }
    }
}

/// A successful result of a tool that declares an `outputSchema` must carry
/// `structuredContent` that conforms to it (MCP 2025-06-18 and later). Error
/// results are passed on as they are.
fn check_output(tool: &RegisteredTool, result: &CallToolResult) -> Result<(), String> {
    let Some(validator) = tool.output_validator() else {
        return Ok(());
    };
    if result.is_error == Some(true) {
        return Ok(());
    }
    match &result.structured_content {
        Some(value) => validator.validate_value(value),
        None => Err("it declares an outputSchema but gave no structuredContent".to_owned()),
    }
}

/// An `isError` result with one text block.
pub(crate) fn error_result(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

fn cancelled_result(name: &str) -> CallToolResult {
    error_result(format!("tool `{name}` was cancelled"))
}

fn format_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

fn panic_message(panic: &(dyn Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_owned()
    }
}
