"""O site só é publicado depois que os testes passam (issue: nada chega ao leitor sem conferir)."""
from pathlib import Path

import yaml

RAIZ = Path(__file__).resolve().parents[1]
WF = RAIZ / ".github" / "workflows"


def _wf(nome):
    dados = yaml.safe_load((WF / nome).read_text(encoding="utf-8"))
    dados["on"] = dados.pop(True, dados.get("on"))   # o YAML lê a chave `on` como True
    return dados


def test_site_espera_os_testes_do_mesmo_commit():
    ci, site = _wf("ci.yml"), _wf("pages.yml")
    assert "push" not in site["on"], "pages.yml não pode publicar direto de um push"
    gatilho = site["on"]["workflow_run"]
    assert gatilho["workflows"] == [ci["name"]] and gatilho["types"] == ["completed"]
    assert gatilho["branches"] == ["main"]
    job = site["jobs"]["publicar"]
    assert "github.event.workflow_run.conclusion == 'success'" in job["if"]
    checkout = next(p for p in job["steps"] if str(p.get("uses", "")).startswith("actions/checkout"))
    assert checkout["with"]["ref"] == "${{ github.event.workflow_run.head_sha }}"
    # e o que vai ao ar passa pela mesma trava de números
    assert any("livro_ext.trava.razao verificar" in str(p.get("run", "")) for p in job["steps"])


def test_ci_roda_o_comando_de_testes_do_readme():
    ci = _wf("ci.yml")
    assert any(p.get("run") == "make test" for p in ci["jobs"]["testes"]["steps"])
    assert "make test" in (RAIZ / ".ci" / "run").read_text(encoding="utf-8")


def test_site_instala_e_confere_as_fontes_do_pdf():
    """O contêiner do Pages não traz fontes: o workflow instala as do Makefile (PACOTES_PDF, no
    alvo `poppler`) antes do `make pdf` e confere o PDF publicado (fontes, links) depois."""
    passos = [str(p.get("run", "")) for p in _wf("pages.yml")["jobs"]["publicar"]["steps"]]
    instala = next(i for i, r in enumerate(passos) if "make poppler" in r)
    pdf = next(i for i, r in enumerate(passos) if r.strip() == "make pdf")
    confere = next(i for i, r in enumerate(passos) if "tests/test_pdf_fontes.py" in r)
    assert instala < pdf < confere
    assert "fonts-dejavu-extra" in (RAIZ / "Makefile").read_text(encoding="utf-8")
