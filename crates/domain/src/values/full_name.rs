//! A person's full name.

use crate::validation::{Rejection, trim_ascii};
use serde::Serialize;
use unicode_normalization::UnicodeNormalization;

pub const CHARACTER: &str = "nome_caractere";
pub const WORDS: &str = "nome_palavras";
pub const LENGTH: &str = "nome_tamanho";

const MAX_CHARS: usize = 120;

/// A full name in Unicode NFC with single spaces: at least two words of letters, where a word may
/// hold a single apostrophe or hyphen between letters (`D'Ávila`, `Ana-Maria`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct FullName(String);

impl FullName {
    pub fn parse(input: &str) -> Result<Self, Rejection> {
        // NFC first: a decomposed "José" carries a combining accent that is not alphabetic.
        let composed: String = trim_ascii(input).nfc().collect();
        let words: Vec<&str> = composed.split_whitespace().collect();
        let normalised = words.join(" ");
        let length = normalised.chars().count();
        if !(2..=MAX_CHARS).contains(&length) {
            return Err(Rejection::new(
                LENGTH,
                format!("nome deve ter de 2 a {MAX_CHARS} caracteres"),
            ));
        }
        if normalised.chars().any(|c| c.is_numeric()) {
            return Err(Rejection::new(CHARACTER, "nome não pode conter números"));
        }
        if !words.iter().all(|w| is_word(w)) {
            return Err(Rejection::new(
                CHARACTER,
                "nome deve conter apenas letras, com apóstrofo ou hífen somente entre letras",
            ));
        }
        if words.len() < 2 {
            return Err(Rejection::new(
                WORDS,
                "informe nome e sobrenome (ao menos duas palavras)",
            ));
        }
        Ok(Self(normalised))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Letters, with single `'`, `’` or `-` only between two letters.
fn is_word(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    chars.iter().enumerate().all(|(i, &c)| {
        if c.is_alphabetic() {
            true
        } else if matches!(c, '\'' | '’' | '-') {
            i > 0 && i + 1 < chars.len() && chars[i - 1].is_alphabetic() && chars[i + 1].is_alphabetic()
        } else {
            false
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn accepts_accents_apostrophes_and_hyphens_and_collapses_spaces() {
        assert_eq!(
            FullName::parse("  José  da Silva ").map(|n| n.0),
            Ok("José da Silva".into())
        );
        assert!(FullName::parse("Maria D'Ávila").is_ok());
        assert!(FullName::parse("Ana-Maria O’Neil").is_ok());
    }

    #[test]
    fn a_decomposed_accent_is_composed_first() {
        let decomposed = "Jose\u{301} Souza";
        assert_eq!(FullName::parse(decomposed).map(|n| n.0), Ok("José Souza".into()));
    }

    #[test]
    fn refuses_digits_single_words_and_stray_marks() {
        assert_eq!(FullName::parse("João 2 Silva").unwrap_err().code, CHARACTER);
        assert_eq!(FullName::parse("Jo4o Silva").unwrap_err().code, CHARACTER);
        assert_eq!(FullName::parse("Madonna").unwrap_err().code, WORDS);
        assert_eq!(FullName::parse("'João Silva").unwrap_err().code, CHARACTER);
        assert_eq!(FullName::parse("João Silva-").unwrap_err().code, CHARACTER);
        assert_eq!(FullName::parse("João Si--lva").unwrap_err().code, CHARACTER);
        assert_eq!(FullName::parse("João S. Silva").unwrap_err().code, CHARACTER);
        assert_eq!(FullName::parse(" ").unwrap_err().code, LENGTH);
        assert_eq!(
            FullName::parse(&format!("Ana {}", "a".repeat(120))).unwrap_err().code,
            LENGTH
        );
    }

    proptest! {
        #[test]
        fn no_input_panics(input in "\\PC{0,130}") {
            let _ = FullName::parse(&input);
        }
    }
}
