//! The store's errors as `io::Error`s of the kind that says what happened. object_store types
//! not-found and forbidden only for reads of one object (a listing's failure is a generic error
//! around its private retry error), so the HTTP status is also read from the error's text,
//! where its retry error writes it: "Server returned non-2xx status code: 403 Forbidden"
//! (object_store 0.14, `client/retry.rs`), followed by the answer's body: for S3, an error
//! document whose `<Code>` names the cause (`SignatureDoesNotMatch`, `NoSuchBucket`,
//! `AccessDenied`, ...; <https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html>),
//! which the messages name instead of the raw answer.

use crate::{Failure, Settings};
use object_store::client::{HttpError, HttpErrorKind};
use std::io::{self, ErrorKind};

/// The HTTP status of a failed request, if the server answered.
pub(crate) fn status_of(e: &Failure) -> Option<u16> {
    let Failure::Store(e) = e else { return None };
    chain(e).find_map(|err| {
        let text = err.to_string();
        let at = text.find("status code: ")? + "status code: ".len();
        text.get(at..at + 3)?.parse().ok()
    })
}

/// The server's answer to a failed request in words: `HTTP 403, SignatureDoesNotMatch: The
/// request signature ...` from an S3 error document; `None` when there is no such document.
pub(crate) fn server_answer(e: &Failure) -> Option<String> {
    let status = status_of(e)?;
    let Failure::Store(e) = e else { return None };
    let text = chain(e)
        .map(|err| err.to_string())
        .find(|t| t.contains("<Code>"))?;
    let element = |name: &str| {
        let start = text.find(&format!("<{name}>"))? + name.len() + 2;
        let end = start + text[start..].find(&format!("</{name}>"))?;
        Some(unescape(text[start..end].trim()))
    };
    let code = element("Code")?;
    Some(match element("Message").filter(|m| !m.is_empty()) {
        Some(message) => format!("HTTP {status}, {code}: {message}"),
        None => format!("HTTP {status}, {code}"),
    })
}

/// XML's five predefined entities.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The error and its sources, outermost first.
fn chain<'e>(
    e: &'e (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'e (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(e), |e| (*e).source())
}

pub(crate) fn io_error(e: Failure, settings: &Settings) -> io::Error {
    let kind = kind_of(&e);
    match &e {
        Failure::Deadline(d) => io::Error::new(
            ErrorKind::TimedOut,
            format!(
                "no complete answer within {:.1}s (retries included)",
                d.as_secs_f64()
            ),
        ),
        Failure::NoAnswer(d) => io::Error::new(
            ErrorKind::TimedOut,
            format!(
                "the first page of the listing did not come within {:.1}s (LABELGUARD_REMOTE_TIMEOUT; not retried past it)",
                d.as_secs_f64()
            ),
        ),
        Failure::Store(store_error) => {
            let mut text = server_answer(&e).unwrap_or_else(|| store_error.to_string());
            if kind == ErrorKind::NotConnected {
                // The innermost cause (`Connection refused (os error 111)`, a DNS failure)
                // first: the store's own words end in "error sending request".
                if let Some(cause) = chain(store_error).last().map(|c| c.to_string()) {
                    text = format!("{cause}: {text}");
                }
            }
            if kind == ErrorKind::TimedOut {
                text = format!(
                    "no answer within {:.1}s per request, {} retries: {text}",
                    settings.request_timeout.as_secs_f64(),
                    settings.retries
                );
            }
            io::Error::new(kind, text)
        }
    }
}

fn kind_of(e: &Failure) -> ErrorKind {
    let store_error = match e {
        Failure::Deadline(_) | Failure::NoAnswer(_) => return ErrorKind::TimedOut,
        Failure::Store(e) => e,
    };
    match store_error {
        object_store::Error::NotFound { .. } => return ErrorKind::NotFound,
        object_store::Error::PermissionDenied { .. }
        | object_store::Error::Unauthenticated { .. } => return ErrorKind::PermissionDenied,
        _ => {}
    }
    match status_of(e) {
        Some(404) => return ErrorKind::NotFound,
        Some(401 | 403) => return ErrorKind::PermissionDenied,
        Some(408 | 504) => return ErrorKind::TimedOut,
        Some(_) => return ErrorKind::Other,
        None => {}
    }
    let http = chain(store_error).find_map(|err| err.downcast_ref::<HttpError>());
    match http.map(HttpError::kind) {
        Some(HttpErrorKind::Timeout) => ErrorKind::TimedOut,
        Some(HttpErrorKind::Connect) => ErrorKind::NotConnected,
        _ => {
            // reqwest reports a connect timeout as a connect error whose source is a timeout.
            let timed_out = chain(store_error).any(|err| {
                err.downcast_ref::<io::Error>()
                    .is_some_and(|io| io.kind() == ErrorKind::TimedOut)
                    || err.to_string().contains("timed out")
            });
            if timed_out {
                ErrorKind::TimedOut
            } else {
                ErrorKind::Other
            }
        }
    }
}
