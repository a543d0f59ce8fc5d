//! `openapi-compat RELEASED CURRENT`: lists the changes from the released OpenAPI document to the
//! current one that break a client, hand-written or generated, and fails (exit 1) when there is
//! one and `info.version`'s major did not move. Exit 2: a document could not be read.

use std::process::ExitCode;

use openapi_compat::{BreakingChange, Verdict, verdict};
use serde_json::Value;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [released, current] = args.as_slice() else {
        eprintln!("uso: openapi-compat <documento-da-última-versão.json> <documento-atual.json>");
        return ExitCode::from(2);
    };
    let (released, current) = match (read(released), read(current)) {
        (Ok(r), Ok(c)) => (r, c),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let (from, to) = (&released["info"]["version"], &current["info"]["version"]);
    match verdict(&released, &current) {
        Ok(Verdict::Compatible) => {
            println!("Contrato compatível com a versão {from}: nada que quebre um cliente.");
            ExitCode::SUCCESS
        }
        Ok(Verdict::BreakingWithNewMajor(changes)) => {
            println!("Mudanças que quebram clientes, aceitas pela nova versão maior ({from} → {to}):");
            list(&changes);
            ExitCode::SUCCESS
        }
        Ok(Verdict::Breaking(changes)) => {
            println!(
                "Mudanças que quebram clientes da versão {from} sem mudar a versão maior ({to}); \
                 desfaça-as ou suba a versão maior em info.version e registre-as em CHANGELOG.md:"
            );
            list(&changes);
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}

fn read(path: &str) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("não foi possível ler {path}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{path} não é JSON: {e}"))
}

fn list(changes: &[BreakingChange]) {
    for change in changes {
        println!("  - {change}");
    }
}
