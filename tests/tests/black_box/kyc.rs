//! Know your customer (issue 70): the CGU's list of politically exposed persons loaded as the
//! Portal da Transparência publishes it, replacing the list in force whole; a file that is not
//! the list is refused whole and the list in force kept.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use api_actix::cli::{import_pep_list, pep_import_summary};
use black_box_tests::TestApp;

const HEADER: &str = "CPF;Nome_PEP;Sigla_Função;Descrição_Função;Nível_Função;Nome_Órgão;Data_Início_Exercício;Data_Fim_Exercício;Data_Fim_Carência";

/// A file under the test's own folder.
fn written(app: &TestApp, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kyc-{}", app.db.name));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cgu_list_replaces_the_one_in_force_and_a_file_that_is_not_the_list_changes_nothing() {
    let app = TestApp::spawn().await;
    let config = TestApp::config(&app.db, &[]);

    // October's file, in Latin-1 as the portal publishes it: two people, a line that does not read.
    let october = format!(
        "{HEADER}\n\
         \"***.982.247-**\";\"JOSÉ DA CONCEIÇÃO\";\"DAS-6\";\"DIRETOR\";\"6\";\"MINISTÉRIO DA FAZENDA\";\"01/02/2020\";\"31/12/2022\";\"31/12/2027\"\n\
         \"***.111.222-**\";\"MARIA SOUZA\";\"VER\";\"VEREADOR\";\"\";\"MUN. DE PARNAMIRIM-RN\";\"01/01/2021\";\"Não informada\";\"\"\n\
         \"529.982.247-25\";\"SEM MÁSCARA\";\"VER\";\"VEREADOR\";\"\";\"MUN. X\";\"01/01/2021\";\"\";\"\"\n"
    );
    let (latin1, _, _) = encoding_rs::WINDOWS_1252.encode(&october);
    let report = import_pep_list(&config, &written(&app, "202610_PEP.csv", &latin1))
        .await
        .unwrap();
    assert_eq!(
        (report.import.lines_read, report.import.entries, report.import.refused),
        (3, 2, 1)
    );
    let printed = pep_import_summary(&report);
    assert!(printed.contains("linha 4: CPF \"529.982.247-25\""), "{printed}");
    assert_eq!(
        app.count("SELECT count(*) AS n FROM kyc_pep_entries WHERE nome = 'JOSÉ DA CONCEIÇÃO' AND nome_chave = 'JOSE DA CONCEICAO' AND cpf_meio = '982247'")
            .await,
        1,
        "Latin-1 read as such"
    );

    // November's, in UTF-8 and larger than one statement's slice: it replaces October's whole.
    let mut november = String::from(HEADER);
    for n in 0..12_000 {
        november.push_str(&format!(
            "\n***.{:03}.{:03}-**;PESSOA {n};DAS;ASSESSOR;4;ÓRGÃO {n};01/03/2024;;01/03/2034",
            n / 1000,
            n % 1000
        ));
    }
    let report = import_pep_list(&config, &written(&app, "202611_PEP.csv", november.as_bytes()))
        .await
        .unwrap();
    assert_eq!((report.import.entries, report.import.refused), (12_000, 0));
    assert_eq!(app.count("SELECT count(*) AS n FROM kyc_pep_entries").await, 12_000);
    assert_eq!(
        app.count("SELECT count(*) AS n FROM kyc_pep_entries WHERE nome_chave = 'MARIA SOUZA'")
            .await,
        0,
        "October's list is gone"
    );

    // A file cut short, a file of another list, and one with no one that reads: refused whole,
    // November's list stays in force and no load is recorded.
    let cut = format!("{HEADER}\n***.982.247-**;JOSE;DAS;DIRETOR;6;ORGAO;01/02/2020;;\n***.111.222-**;MARIA;DAS");
    let other = "CPF;NOME;CARGO\n***.982.247-**;JOSE;DIRETOR\n";
    let nobody = format!("{HEADER}\n529.982.247-25;SEM MASCARA;DAS;DIRETOR;6;ORGAO;01/02/2020;;\n");
    for (name, bytes, says) in [
        ("cortado.csv", cut.as_bytes(), "linha 3: 3 colunas em vez de 9"),
        ("outra.csv", other.as_bytes(), "não é a lista de PEP da CGU"),
        ("ninguem.csv", nobody.as_bytes(), "nenhuma pessoa"),
    ] {
        let error = import_pep_list(&config, &written(&app, name, bytes))
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains(says), "{name}: {error}");
    }
    assert_eq!(app.count("SELECT count(*) AS n FROM kyc_pep_entries").await, 12_000);
    assert_eq!(app.count("SELECT count(*) AS n FROM kyc_pep_imports").await, 2);
}
