//! Passwords in clear, held only as long as needed, and the policy for new ones.

use crate::validation::Rejection;
use std::fmt;

pub const REQUIRED: &str = "senha_obrigatoria";
pub const TOO_LONG: &str = "senha_longa";
pub const WEAK: &str = "senha_fraca";

/// bcrypt reads at most 72 bytes; a longer password is refused, never silently cut.
pub const MAX_BYTES: usize = 72;

/// A password as typed. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    /// A password offered at sign-in: present and within bcrypt's limit.
    pub fn parse(input: &str) -> Result<Self, Rejection> {
        if input.is_empty() {
            return Err(Rejection::new(REQUIRED, "senha é obrigatória"));
        }
        if input.len() > MAX_BYTES {
            return Err(Rejection::new(
                TOO_LONG,
                format!("senha deve ter no máximo {MAX_BYTES} bytes"),
            ));
        }
        Ok(Self(input.to_owned()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(***)")
    }
}

/// The stored bcrypt hash of a password.
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordHash(pub String);

impl fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PasswordHash(***)")
    }
}

/// What a new password must have: the stricter of the spec's two rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PasswordPolicy {
    pub min_chars: usize,
}

impl Default for PasswordPolicy {
    fn default() -> Self {
        Self { min_chars: 8 }
    }
}

/// Passwords too common to allow whatever their shape.
const COMMON: &[&str] = &[
    "Senha@123",
    "Senha123!",
    "Password1!",
    "Mudar@123",
    "Brasil@123",
    "Admin@123",
    "Abc@1234",
    "Qwerty@123",
    "P@ssw0rd",
    "Teste@123",
];

impl PasswordPolicy {
    pub fn check(&self, input: &str) -> Result<Password, Rejection> {
        let password = Password::parse(input)?;
        let long_enough = input.chars().count() >= self.min_chars;
        let upper = input.chars().any(char::is_uppercase);
        let digit = input.chars().any(|c| c.is_ascii_digit());
        let special = input.chars().any(|c| !c.is_alphanumeric() && !c.is_whitespace());
        if !(long_enough && upper && digit && special) {
            return Err(Rejection::new(
                WEAK,
                format!(
                    "senha deve ter ao menos {} caracteres, com uma letra maiúscula, um dígito e um caractere especial",
                    self.min_chars
                ),
            ));
        }
        if COMMON.iter().any(|c| c.eq_ignore_ascii_case(input)) {
            return Err(Rejection::new(WEAK, "senha muito comum; escolha outra"));
        }
        Ok(password)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_in_passwords_are_present_and_at_most_72_bytes() {
        assert_eq!(Password::parse("").unwrap_err().code, REQUIRED);
        assert!(Password::parse(&"a".repeat(72)).is_ok());
        assert_eq!(Password::parse(&"a".repeat(73)).unwrap_err().code, TOO_LONG);
        // 36 two-byte characters are 72 bytes; one more is over, though only 37 characters.
        assert!(Password::parse(&"é".repeat(36)).is_ok());
        assert_eq!(Password::parse(&"é".repeat(37)).unwrap_err().code, TOO_LONG);
    }

    #[test]
    fn policy_wants_length_upper_digit_and_special() {
        let policy = PasswordPolicy::default();
        assert!(policy.check("Vendas#2026").is_ok());
        for weak in ["Vend#26", "vendas#2026", "Vendas2026", "Vendas#abcd"] {
            assert_eq!(policy.check(weak).unwrap_err().code, WEAK, "{weak}");
        }
        assert_eq!(policy.check("senha@123").unwrap_err().code, WEAK);
        assert_eq!(
            policy.check(&format!("A1#{}", "a".repeat(70))).unwrap_err().code,
            TOO_LONG
        );
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let p = Password::parse("Segredo#1").unwrap();
        assert_eq!(format!("{p:?}"), "Password(***)");
    }
}
