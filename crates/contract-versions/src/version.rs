//! The contract's dated versions, oldest first. A version names the shapes of every answer, event
//! and document; a newer one exists only for a change that would break a client of the older.

use std::fmt;

/// A dated version of the contract (`Sales-Version`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ApiVersion {
    /// The seed's shapes as first released (release 0.1.0): proposal statuses without `EXPIRADO`.
    V2026_11_21,
    /// The shapes the service served on 2026-11-29, before versions existed: what every credential
    /// never pinned has been reading (decision 228).
    V2026_11_29,
    /// The partner's frictions fixed: `birthday` an ISO date, address numbers as the text sent.
    V2026_12_01,
    /// A contract's notices and renewals told as events: `AVISO_REGISTRADO`, `VIGENCIA_RENOVADA`.
    V2026_12_06,
}

impl ApiVersion {
    /// Every version, oldest first.
    pub const ALL: [ApiVersion; 4] = [
        Self::V2026_11_21,
        Self::V2026_11_29,
        Self::V2026_12_01,
        Self::V2026_12_06,
    ];
    /// The version handlers and the domain write.
    pub const NEWEST: ApiVersion = Self::V2026_12_06;
    /// The version of a credential never pinned and of a request that names none: what such
    /// callers read before versions existed, so that nothing changes under them.
    pub const UNPINNED: ApiVersion = Self::V2026_11_29;

    /// The name on the wire (`2026-11-21`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2026_11_21 => "2026-11-21",
            Self::V2026_11_29 => "2026-11-29",
            Self::V2026_12_01 => "2026-12-01",
            Self::V2026_12_06 => "2026-12-06",
        }
    }

    /// The version a `Sales-Version` value names (surrounding blanks ignored).
    pub fn parse(text: &str) -> Result<Self, UnknownVersion> {
        let wanted = text.trim();
        Self::ALL
            .into_iter()
            .find(|v| v.as_str() == wanted)
            .ok_or_else(|| UnknownVersion {
                given: wanted.to_owned(),
            })
    }

    /// A stored pin as a version. A name this binary does not know (pinned by a newer one during
    /// a rolling deploy) reads the newest this binary has, the nearest to what was asked for.
    pub fn from_pin(name: Option<&str>) -> Option<Self> {
        name.map(|name| Self::parse(name).unwrap_or(Self::NEWEST))
    }

    /// The known names, oldest first, comma separated (for messages).
    pub fn known() -> String {
        Self::ALL.map(Self::as_str).join(", ")
    }
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `Sales-Version` that names no version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "versão do contrato desconhecida: {given:?}; as conhecidas são {}",
    ApiVersion::known()
)]
pub struct UnknownVersion {
    pub given: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_its_version_and_versions_sort_by_date() {
        for version in ApiVersion::ALL {
            assert_eq!(ApiVersion::parse(version.as_str()), Ok(version));
        }
        let mut names: Vec<&str> = ApiVersion::ALL.map(ApiVersion::as_str).to_vec();
        names.sort_unstable();
        assert_eq!(names, ApiVersion::ALL.map(ApiVersion::as_str).to_vec());
        assert_eq!(
            ApiVersion::NEWEST,
            *ApiVersion::ALL.last().unwrap_or(&ApiVersion::V2026_11_21)
        );
    }

    #[test]
    fn an_unknown_name_is_refused_naming_the_known_ones() {
        let error = ApiVersion::parse("2025-01-01").unwrap_err();
        assert_eq!(error.given, "2025-01-01");
        assert!(
            error.to_string().contains("2026-11-21, 2026-11-29, 2026-12-01"),
            "{error}"
        );
        assert!(ApiVersion::parse("").is_err());
        assert_eq!(ApiVersion::parse(" 2026-12-01 "), Ok(ApiVersion::V2026_12_01));
    }

    #[test]
    fn a_pin_reads_as_its_version_and_one_this_binary_does_not_know_as_the_newest() {
        assert_eq!(ApiVersion::from_pin(None), None);
        assert_eq!(ApiVersion::from_pin(Some("2026-11-21")), Some(ApiVersion::V2026_11_21));
        assert_eq!(ApiVersion::from_pin(Some("2099-01-01")), Some(ApiVersion::NEWEST));
    }
}
