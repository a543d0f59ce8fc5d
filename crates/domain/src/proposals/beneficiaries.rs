//! A proposal's beneficiaries (issue 68, decision 279): whom the insured names to receive the
//! capital, each with a whole-percent share, the shares summing 100. None named, the law names
//! them: half to the spouse, if any, the rest to the insured's heirs (Lei 15.040/2024, art. 115),
//! which the documents print. A product may require them; the demo's do not.

use crate::validation::{Violations, codes};
use crate::values::{BirthDate, Cpf, FullName, Kinship};

/// The most beneficiaries a proposal names.
pub const MAX_BENEFICIARIES: usize = 10;

/// The shares do not sum 100.
pub const SHARES: &str = "beneficiarios_percentual";
/// The insured named as their own beneficiary.
pub const INSURED: &str = "beneficiario_segurado";

/// What the documents print when no beneficiary is named.
pub const LEGAL_HEIRS: &str = "Sem beneficiário indicado: metade do capital segurado ao cônjuge, se \
houver, e o restante aos demais herdeiros do(a) segurado(a) (Lei nº 15.040/2024, art. 115).";

/// One beneficiary, its fields valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beneficiary {
    pub name: FullName,
    pub cpf: Option<Cpf>,
    pub birth_date: Option<BirthDate>,
    pub kinship: Kinship,
    /// Whole percent of the capital, 1 to 100.
    pub share: u8,
}

/// A beneficiary as the proposal keeps it (route 7's `data.beneficiaries`, the documents).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BeneficiaryView {
    pub name: String,
    pub cpf: Option<String>,
    pub birth_date: Option<chrono::NaiveDate>,
    pub kinship: Kinship,
    pub share: u8,
}

impl From<&Beneficiary> for BeneficiaryView {
    fn from(b: &Beneficiary) -> Self {
        Self {
            name: b.name.as_str().to_owned(),
            cpf: b.cpf.as_ref().map(|c| c.as_str().to_owned()),
            birth_date: b.birth_date.map(|d| d.date()),
            kinship: b.kinship,
            share: b.share,
        }
    }
}

/// The lines the documents print of a proposal's beneficiaries: one per beneficiary (name,
/// kinship, share, and the CPF and birth date when given), or the legal heirs' rule when none was
/// named.
pub fn printed(list: &[BeneficiaryView]) -> Vec<String> {
    if list.is_empty() {
        return vec![LEGAL_HEIRS.to_owned()];
    }
    list.iter()
        .map(|b| {
            let mut line = format!("{} ({}) — {}%", b.name, b.kinship.as_str(), b.share);
            if let Some(cpf) = &b.cpf {
                line.push_str(&format!(", CPF {}", crate::contract::formats::cpf(cpf)));
            }
            if let Some(born) = b.birth_date {
                line.push_str(&format!(", nascido(a) em {}", born.format("%d/%m/%Y")));
            }
            line
        })
        .collect()
}

/// The rules a list of beneficiaries keeps as a whole, each broken one recorded under `field`
/// (or one of its items): at most [`MAX_BENEFICIARIES`], shares summing 100, no CPF twice, and
/// never the insured's own.
pub fn check_list(field: &str, list: &[Beneficiary], insured: Option<&Cpf>, v: &mut Violations) {
    if list.is_empty() {
        return;
    }
    if list.len() > MAX_BENEFICIARIES {
        v.add(
            field,
            codes::INVALID_VALUE,
            format!("{field} deve ter no máximo {MAX_BENEFICIARIES} beneficiários"),
        );
    }
    let total: u32 = list.iter().map(|b| u32::from(b.share)).sum();
    if total != 100 {
        v.add(
            field,
            SHARES,
            format!("a soma de share em {field} deve ser 100 (é {total})"),
        );
    }
    for (i, beneficiary) in list.iter().enumerate() {
        let Some(cpf) = &beneficiary.cpf else { continue };
        let at = format!("{field}[{i}].cpf");
        if insured == Some(cpf) {
            v.add(
                at,
                INSURED,
                "o(a) segurado(a) não pode ser beneficiário(a) do próprio seguro",
            );
        } else if list[..i].iter().any(|earlier| earlier.cpf.as_ref() == Some(cpf)) {
            v.add(at, codes::DUPLICATE, "CPF de beneficiário repetido");
        }
    }
}

/// A share as sent: a whole percent from 1 to 100.
pub fn share(value: i64) -> Option<u8> {
    u8::try_from(value).ok().filter(|s| (1..=100).contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(cpf: Option<&str>, share: u8) -> Beneficiary {
        Beneficiary {
            name: FullName::parse("Ana Souza").unwrap_or_else(|e| panic!("{e:?}")),
            cpf: cpf.map(|c| Cpf::parse(c).unwrap_or_else(|e| panic!("{e:?}"))),
            birth_date: None,
            kinship: Kinship::Child,
            share,
        }
    }

    fn fields(list: &[Beneficiary], insured: &str) -> Vec<(String, &'static str)> {
        let insured = Cpf::parse(insured).ok();
        let mut v = Violations::new();
        check_list("beneficiaries", list, insured.as_ref(), &mut v);
        v.errors().iter().map(|e| (e.field.clone(), e.code)).collect()
    }

    #[test]
    fn shares_sum_a_hundred_and_the_list_names_no_cpf_twice_nor_the_insureds() {
        let insured = "52998224725";
        assert!(fields(&[named(None, 60), named(Some("12345678909"), 40)], insured).is_empty());
        assert!(fields(&[], insured).is_empty(), "none named: the legal heirs");
        assert_eq!(
            fields(&[named(None, 50), named(None, 40)], insured),
            [("beneficiaries".to_owned(), SHARES)]
        );
        assert_eq!(
            fields(
                &[named(Some("12345678909"), 50), named(Some("123.456.789-09"), 50)],
                insured
            ),
            [("beneficiaries[1].cpf".to_owned(), codes::DUPLICATE)]
        );
        assert_eq!(
            fields(&[named(Some(insured), 100)], insured),
            [("beneficiaries[0].cpf".to_owned(), INSURED)]
        );
        let eleven: Vec<_> = (0..11).map(|_| named(None, 9)).collect();
        assert_eq!(
            fields(&eleven, insured),
            [
                ("beneficiaries".to_owned(), codes::INVALID_VALUE),
                ("beneficiaries".to_owned(), SHARES)
            ]
        );
    }

    #[test]
    fn a_share_is_a_whole_percent_from_one_to_a_hundred() {
        assert_eq!(share(1), Some(1));
        assert_eq!(share(100), Some(100));
        assert_eq!(share(0), None);
        assert_eq!(share(101), None);
        assert_eq!(share(-5), None);
    }
}
