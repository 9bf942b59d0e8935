//! A URL as it may be printed (the proxy's upstream, an MCP server's):
//! without the user name and password it may carry
//! (`http://user:password@host/v1`).

use std::borrow::Cow;

/// `url` with everything between its `://` (else its start) and the last `@`
/// before any `?` or `#` replaced by `***`. That is the user name and
/// password of a well-formed URL, and still covers a password holding a
/// stray `/`, whose URL would otherwise print the part after it.
pub(crate) fn without_userinfo(url: &str) -> Cow<'_, str> {
    let start = url.find("://").map_or(0, |i| i + 3);
    let rest = &url[start..];
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => Cow::Owned(format!("{}***{}", &url[..start], &rest[at..])),
        None => Cow::Borrowed(url),
    }
}

/// `text` with the user name and password of every URL in it replaced by
/// `***` (what [`without_userinfo`] does to one URL): for an error message
/// that may quote a URL, such as an HTTP client's.
pub(crate) fn without_userinfo_in(text: &str) -> Cow<'_, str> {
    if !text.contains("://") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        // The authority ends at a path, a query, a fragment, or the end of
        // the quoted URL.
        let end = tail
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | ')' | '"' | '\'' | '>') || c.is_whitespace()
            })
            .unwrap_or(tail.len());
        match tail[..end].rfind('@') {
            Some(user_end) => {
                out.push_str("***");
                out.push_str(&tail[user_end..end]);
            }
            None => out.push_str(&tail[..end]),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_names_and_passwords_are_replaced() {
        for (url, printed) in [
            ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
            (
                "http://user:pw@127.0.0.1:8000/v1",
                "http://***@127.0.0.1:8000/v1",
            ),
            (
                "https://sk-key@api.example.com",
                "https://***@api.example.com",
            ),
            ("http://user:p@ss@host/v1", "http://***@host/v1"),
            ("http://user:pa/ss@host/v1", "http://***@host/v1"),
            ("http://:pw@host", "http://***@host"),
            ("user:pw@host/v1", "***@host/v1"),
            ("http://host/v1?to=a@b", "http://host/v1?to=a@b"),
            ("http://host/v1#a@b", "http://host/v1#a@b"),
            ("", ""),
        ] {
            assert_eq!(without_userinfo(url), printed, "{url}");
        }
    }

    #[test]
    fn every_url_in_a_message_loses_its_password() {
        for (text, printed) in [
            ("no url here", "no url here"),
            (
                "error sending request for url (http://user:pw@127.0.0.1:9/mcp): refused",
                "error sending request for url (http://***@127.0.0.1:9/mcp): refused",
            ),
            (
                "a http://a:b@h1/x and https://c@h2?q=d@e then \"ws://e:f@h3\"",
                "a http://***@h1/x and https://***@h2?q=d@e then \"ws://***@h3\"",
            ),
            ("http://host:8/p@q", "http://host:8/p@q"),
        ] {
            assert_eq!(without_userinfo_in(text), printed, "{text}");
        }
    }
}
