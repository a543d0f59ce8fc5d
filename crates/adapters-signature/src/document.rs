//! The proposal as the PDF the parties sign: plain text in Helvetica (one of PDF's standard fonts,
//! so nothing is embedded), WinAnsi-encoded for Portuguese accents.

use domain::proposals::model::ProposalDetail;
use domain::signature::{DocumentRenderer, RenderError};
use lopdf::content::{Content, Operation};
use lopdf::{Document, Object, Stream, StringFormat, dictionary};

pub struct PdfRenderer;

/// WinAnsi bytes for a line: Latin-1 letters as they are, typographic quotes mapped, anything else `?`.
fn win_ansi(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match c {
            '’' => 0x92,
            '‘' => 0x91,
            '“' => 0x93,
            '”' => 0x94,
            '–' => 0x96,
            '—' => 0x97,
            c if (c as u32) < 0x80 || (0xA0..=0xFF).contains(&(c as u32)) => c as u32 as u8,
            _ => b'?',
        })
        .collect()
}

fn reais(cents: i64) -> String {
    format!("R$ {},{:02}", cents / 100, cents % 100)
}

/// The lines of the document, in order; a line starting with `#` is a heading.
pub fn lines(d: &ProposalDetail) -> Vec<String> {
    let p = &d.proposal;
    let c = &d.customer;
    let none = || "-".to_owned();
    let mut out = vec![
        "# Proposta de adesão".to_owned(),
        format!("Identificador: {}", p.identifier),
        format!("Produto: {} (código {})", d.product_name, d.product_code),
        format!("Valor: {}", reais(p.value)),
        format!("Situação: {}", p.status),
        String::new(),
        "# Cliente".to_owned(),
        format!("Nome: {}", c.full_name),
        format!("CPF: {}", c.cpf),
        format!("Data de nascimento: {}", c.birth_date.format("%d/%m/%Y")),
        format!("E-mail: {}", c.email.clone().unwrap_or_else(none)),
        format!("Celular: {}", c.cell_phone.clone().unwrap_or_else(none)),
    ];
    if let Some(a) = &d.address {
        out.push(format!(
            "Endereço: {}, {} {} - {}, {}/{} - CEP {}",
            a.street,
            a.number,
            a.complement.clone().unwrap_or_default(),
            a.neighborhood,
            a.city,
            a.state,
            a.cep
        ));
    }
    out.push(String::new());
    out.push("# Pagamento".to_owned());
    match &d.payment {
        Some(pay) => {
            out.push(format!("Forma: {}", pay.payment_type));
            if let Some(bank) = &pay.bank {
                out.push(format!(
                    "Banco {bank}, agência {}, conta {}",
                    pay.agency.clone().unwrap_or_else(none),
                    pay.account.clone().unwrap_or_else(none)
                ));
            }
            if let Some(number) = &pay.sheet_number {
                out.push(format!(
                    "{}: {number}, espécie {}",
                    pay.sheet_type.clone().unwrap_or_else(none),
                    pay.specie.map_or_else(none, |s| s.to_string())
                ));
            }
        }
        None => out.push("Forma: assinatura recorrente (e-commerce)".to_owned()),
    }
    out.push(String::new());
    out.push("# Partes".to_owned());
    out.push(format!("Cliente: {} (CPF {})", c.full_name, c.cpf));
    if let Some(partner) = &d.partner {
        out.push(format!(
            "Associação: {} (CNPJ {})",
            partner.association_name.clone().unwrap_or_else(none),
            partner.association_cnpj.clone().unwrap_or_else(none)
        ));
        out.push(format!(
            "Federação: {} (CNPJ {})",
            partner.federation_name.clone().unwrap_or_else(none),
            partner.federation_cnpj.clone().unwrap_or_else(none)
        ));
        out.push(format!(
            "Empresa: {} (CNPJ {})",
            partner.company_social_reason.clone().unwrap_or_else(none),
            partner.company_cnpj.clone().unwrap_or_else(none)
        ));
        out.push(format!(
            "Parceiro: {} (CNPJ {})",
            partner.social_reason, partner.document
        ));
    }
    out.push(String::new());
    out.push("As partes acima declaram concordar com os termos desta proposta, assinada eletronicamente.".to_owned());
    out
}

impl DocumentRenderer for PdfRenderer {
    fn render(&self, detail: &ProposalDetail) -> Result<Vec<u8>, RenderError> {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font_id = doc.add_object(dictionary! {
            "Type" => "Font",
            "Subtype" => "Type1",
            "BaseFont" => "Helvetica",
            "Encoding" => "WinAnsiEncoding",
        });
        let bold_id = doc.add_object(dictionary! {
            "Type" => "Font",
            "Subtype" => "Type1",
            "BaseFont" => "Helvetica-Bold",
            "Encoding" => "WinAnsiEncoding",
        });
        let resources_id = doc.add_object(dictionary! {
            "Font" => dictionary! { "F1" => font_id, "F2" => bold_id },
        });
        let mut operations = vec![
            Operation::new("BT", vec![]),
            Operation::new("TL", vec![16.into()]),
            Operation::new("Td", vec![50.into(), 790.into()]),
        ];
        for line in lines(detail) {
            let (font, size, text) = match line.strip_prefix("# ") {
                Some(heading) => ("F2", 13, heading.to_owned()),
                None => ("F1", 10, line),
            };
            operations.push(Operation::new("Tf", vec![font.into(), size.into()]));
            operations.push(Operation::new(
                "'",
                vec![Object::String(win_ansi(&text), StringFormat::Literal)],
            ));
        }
        operations.push(Operation::new("ET", vec![]));
        let content = Content { operations }
            .encode()
            .map_err(|e| RenderError(e.to_string()))?;
        let content_id = doc.add_object(Stream::new(dictionary! {}, content));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => content_id,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        });
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1 }),
        );
        let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog_id);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).map_err(|e| RenderError(e.to_string()))?;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portuguese_letters_survive_and_others_are_marked() {
        assert_eq!(win_ansi("ação"), vec![b'a', 0xE7, 0xE3, b'o']);
        assert_eq!(win_ansi("D’Ávila"), vec![b'D', 0x92, 0xC1, b'v', b'i', b'l', b'a']);
        assert_eq!(win_ansi("€"), b"?".to_vec());
    }

    #[test]
    fn values_are_written_in_reais() {
        assert_eq!(reais(4990), "R$ 49,90");
        assert_eq!(reais(141200), "R$ 1412,00");
    }
}
