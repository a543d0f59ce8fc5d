//! How a personal value is shown where it must not be read whole: in logs and in a proposal's
//! history. The one definition of the rules: a kind of mask per kind of value, and the history's
//! field names that take each (anything else personal is shown only as changed). The database's
//! history triggers spell the same rules in SQL (`migrations-repeatable/history_masked.sql`,
//! where the history is written); a test of the PostgreSQL adapter compares the two for every
//! field named here.

/// A kind of mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mask {
    /// A CPF's check digits: `***.***.***-09`.
    CheckDigits,
    /// A name's initials: `M. d. S.`.
    Initials,
    /// An e-mail's first letter and domain: `m***@exemplo.com.br`.
    EmailInitialAndDomain,
    /// A phone's last four digits: `****5678`.
    LastFourDigits,
    /// A birth date's year (`AAAA-MM-DD` stored): `**/**/1990`.
    BirthYear,
    /// Nothing of it: `***`.
    Hidden,
}

/// The history's field names (stored column names) with a mask other than [`Mask::Hidden`].
pub const HISTORY_FIELDS: &[(&str, Mask)] = &[
    ("cpf", Mask::CheckDigits),
    ("cpf_cliente", Mask::CheckDigits),
    ("nome_completo", Mask::Initials),
    ("email", Mask::EmailInitialAndDomain),
    ("celular", Mask::LastFourDigits),
    ("telefone_fixo", Mask::LastFourDigits),
    ("data_nascimento", Mask::BirthYear),
];

impl Mask {
    /// The mask of a personal field of the history.
    pub fn of_history_field(field: &str) -> Mask {
        HISTORY_FIELDS
            .iter()
            .find(|(name, _)| *name == field)
            .map_or(Mask::Hidden, |(_, mask)| *mask)
    }

    /// The value as this mask shows it.
    pub fn apply(self, value: &str) -> String {
        let first = |s: &str| s.chars().next().map(String::from).unwrap_or_default();
        let last = |s: &str, n: usize| {
            let chars: Vec<char> = s.chars().collect();
            chars[chars.len().saturating_sub(n)..].iter().collect::<String>()
        };
        match self {
            Mask::CheckDigits => format!("***.***.***-{}", last(value, 2)),
            Mask::Initials => value
                .trim_matches(' ')
                .split(char::is_whitespace)
                .filter(|word| !word.is_empty())
                .map(|word| format!("{}.", first(word)))
                .collect::<Vec<_>>()
                .join(" "),
            Mask::EmailInitialAndDomain => {
                let domain = value.split('@').nth(1).unwrap_or_default();
                format!("{}***@{domain}", first(value))
            }
            Mask::LastFourDigits => format!("****{}", last(value, 4)),
            Mask::BirthYear => format!("**/**/{}", value.chars().take(4).collect::<String>()),
            Mask::Hidden => "***".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_shows_only_its_part() {
        assert_eq!(Mask::CheckDigits.apply("12345678909"), "***.***.***-09");
        assert_eq!(Mask::Initials.apply("Maria  da Silva"), "M. d. S.");
        assert_eq!(Mask::Initials.apply("Álvaro Éden"), "Á. É.");
        assert_eq!(
            Mask::EmailInitialAndDomain.apply("maria@exemplo.com.br"),
            "m***@exemplo.com.br"
        );
        assert_eq!(Mask::LastFourDigits.apply("11912345678"), "****5678");
        assert_eq!(Mask::BirthYear.apply("1990-05-15"), "**/**/1990");
        assert_eq!(Mask::Hidden.apply("Losartana"), "***");
    }

    #[test]
    fn a_field_not_named_is_hidden() {
        assert_eq!(Mask::of_history_field("cpf_cliente"), Mask::CheckDigits);
        assert_eq!(Mask::of_history_field("medicamento_descricao"), Mask::Hidden);
    }
}
