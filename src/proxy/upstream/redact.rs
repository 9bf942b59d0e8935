//! The upstream URL as it may be printed: without the user name and
//! password it may carry (`http://user:password@host/v1`).

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
}
