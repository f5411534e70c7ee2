"""O mapa da casa (o começo do CONTRIBUINDO.md) é o de livro_ext/: as mesmas pastas, e cada
família importa só das famílias que a tabela lhe dá."""
import ast
import re

from conftest import RAIZ

CASA = RAIZ / "livro_ext"
LINHA = re.compile(r"^\| `livro_ext/(\w+)/` \|[^|]*\| ([^|]*) \|$", re.M)


def _mapa(texto: str) -> dict[str, set[str]]:
    """{família: {o que ela pode importar}} da tabela do mapa."""
    return {fam: set() if imp.strip() == "nenhuma" else {i.strip() for i in imp.split(",")}
            for fam, imp in LINHA.findall(texto)}


def _familias() -> set[str]:
    return {p.parent.name for p in CASA.glob("*/__init__.py")}


def _importa(arquivo, familia: str) -> set[str]:
    """As famílias (e livro_ext.livro) que um módulo de `familia` importa."""
    achados = set()
    for no in ast.walk(ast.parse(arquivo.read_text(encoding="utf-8"))):
        if isinstance(no, ast.ImportFrom) and no.level == 2:            # from ..x import y
            achados.add((no.module or "").split(".")[0] or "?")
        elif isinstance(no, ast.ImportFrom) and no.module and no.module.startswith("livro_ext."):
            achados.add(no.module.split(".")[1])
        elif isinstance(no, ast.Import):
            achados |= {a.name.split(".")[1] for a in no.names if a.name.startswith("livro_ext.")}
    achados.discard(familia)
    return {"livro_ext.livro" if a == "livro" else a for a in achados}


def _texto_do_mapa():
    return (RAIZ / "CONTRIBUINDO.md").read_text(encoding="utf-8").split("\n## ", 2)[1]


def test_o_mapa_lista_as_pastas_de_livro_ext():
    assert set(_mapa(_texto_do_mapa())) == _familias()
    soltos = sorted(p.name for p in CASA.iterdir() if p.is_file() and p.name not in ("__init__.py", "livro.py"))
    assert soltos == [], f"cada arquivo mora numa família (o mapa do CONTRIBUINDO.md): {soltos}"


def test_cada_familia_importa_so_o_que_o_mapa_diz():
    mapa = _mapa(_texto_do_mapa())
    fora = [f"{arq.relative_to(RAIZ)} importa {imp}"
            for fam in sorted(mapa) for arq in sorted((CASA / fam).glob("*.py"))
            for imp in sorted(_importa(arq, fam) - mapa[fam])]
    assert not fora, fora


def test_o_mapa_falha_com_uma_pasta_a_mais_ou_um_import_proibido(tmp_path):
    texto = _texto_do_mapa()
    assert set(_mapa(texto.replace("| `livro_ext/pdf/` |", "| `livro_ext/papel/` |"))) != _familias()
    arq = tmp_path / "x.py"
    arq.write_text("from ..trava import razao\nfrom livro_ext.pdf import pdf\nfrom ..livro import URL_GITHUB\n")
    assert _importa(arq, "tema") == {"trava", "pdf", "livro_ext.livro"}
    assert _importa(arq, "tema") - _mapa(texto)["tema"] == {"trava", "pdf", "livro_ext.livro"}


def test_a_casa_do_build_cabe_no_orcamento():
    """A issue 47: `livro_ext/` inteiro (todas as linguagens) fica abaixo de 4.600 linhas, menor que o
    pacote do livro que ele constrói (`lab/livro`). Cresceu? Apague o que uma biblioteca já faz antes."""
    def linhas(pasta):
        return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in (RAIZ / pasta).rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts)

    casa = linhas("livro_ext")
    assert casa < 4600, f"livro_ext/ tem {casa} linhas"
    assert casa < linhas("lab/livro"), "a casa do build passou do tamanho do livro"
