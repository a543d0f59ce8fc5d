//! How a person's name is compared with a list's: the lists spell names in capitals without
//! accents ("JOSE DA SILVA"), the sale as typed ("José da Silva"), so both become the same key.

use unicode_normalization::UnicodeNormalization;

/// The key a name is matched by: accents dropped (NFD, combining marks out), capitals, anything
/// but letters a space, runs of spaces one. `"  José  d'Ávila "` and `"JOSE D AVILA"` are one key.
pub fn match_key(name: &str) -> String {
    let letters: String = name
        .nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .map(|c| {
            if c.is_alphabetic() {
                c.to_uppercase().next().unwrap_or(c)
            } else {
                ' '
            }
        })
        .collect();
    letters.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_case_punctuation_and_spacing_do_not_tell_two_names_apart() {
        assert_eq!(match_key("  José  d'Ávila "), "JOSE D AVILA");
        assert_eq!(match_key("JOSE D AVILA"), "JOSE D AVILA");
        assert_eq!(match_key("Jose\u{301} da Conceição"), "JOSE DA CONCEICAO");
        assert_ne!(match_key("Maria da Silva"), match_key("Mario da Silva"));
        assert_eq!(match_key(""), "");
    }
}
