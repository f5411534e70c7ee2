"""make listas: a turma, os exercícios escolhidos, a lista de cada aluno (sem a resposta), o gabarito,
os links; a versão de cada um não depende da turma; os mesmos dados dão os mesmos bytes."""
import csv
import json

import pytest

from livro.exercicios import EXERCICIOS, versao
from livro.exercicios import lista as L
from livro.exercicios.confere import Invalida
from livro.exercicios.listas import escrever, ler_turma, main, turma_rapida

TURMA = [("Ana Souza", "A1"), ("Bruno Lima", "B2"), ("Carla Dias", "C3")]
ESCOLHA = "mascaras,bloco-2:3"


def _bytes(pasta):
    return {str(p.relative_to(pasta)): p.read_bytes() for p in sorted(pasta.rglob("*")) if p.is_file()}


def test_os_mesmos_dados_dao_os_mesmos_bytes(tmp_path):
    a = escrever("semana-4", TURMA, ESCOLHA, True, tmp_path / "a", "https://x.github.io/l")
    b = escrever("semana-4", TURMA, ESCOLHA, True, tmp_path / "b", "https://x.github.io/l")
    assert sorted(_bytes(a)) == ["alunos/A1.html", "alunos/B2.html", "alunos/C3.html", "gabarito.csv",
                                 "gabarito.html", "links.csv", "lista.json"]
    assert _bytes(a) == _bytes(b)
    c = escrever("semana-5", TURMA, ESCOLHA, True, tmp_path / "c", "https://x.github.io/l")
    assert _bytes(a)["alunos/A1.html"] != _bytes(c)["alunos/A1.html"]


def test_a_versao_de_um_aluno_nao_depende_da_turma(tmp_path):
    """Acrescentar, tirar ou reordenar alunos não muda os números de ninguém."""
    a = escrever("semana-4", TURMA, ESCOLHA, True, tmp_path / "a", "https://s")
    b = escrever("semana-4", [("Zé Novo", "Z9"), TURMA[2], TURMA[0]], ESCOLHA, True, tmp_path / "b", "https://s")
    for m in ("A1", "C3"):
        assert (a / "alunos" / f"{m}.html").read_bytes() == (b / "alunos" / f"{m}.html").read_bytes()
    gab = lambda p: {(r[0], r[1]): r[2:] for r in csv.reader((p / "gabarito.csv").open())}  # noqa: E731
    ga, gb = gab(a), gab(b)
    assert all(ga[k] == gb[k] for k in ga if k[0] in ("A1", "C3"))


def test_a_lista_do_aluno_e_o_gabarito(tmp_path):
    p = escrever("semana-4", TURMA, ESCOLHA, False, tmp_path, "https://x.github.io/l/", "Curso X")
    ids = [i for i in EXERCICIOS if i.startswith("mascaras")] + ["bloco-2"]
    cfg = json.loads((p / "lista.json").read_text())
    assert cfg == {"lista": "semana-4", "curso": "Curso X", "conferir": False, "site": "https://x.github.io/l",
                   "exercicios": [[i, 3 if i == "bloco-2" else 1] for i in ids]}
    html = (p / "alunos" / "B2.html").read_text()
    url = L.link("https://x.github.io/l", "semana-4", "B2", ids, False)
    assert f'href="{url.replace("&", "&amp;")}"' in html and "<svg" in html  # o link e o QR
    assert "Bruno Lima" in html and "Curso X" in html and "3 pontos" in html and "6 pontos no total" in html
    assert 'class="gab"' not in html and html.count('class="conta"') == len(ids)
    gab = (p / "gabarito.html").read_text()
    linhas = list(csv.DictReader((p / "gabarito.csv").open()))
    assert len(linhas) == len(TURMA) * len(ids)
    for r in linhas:
        v = versao(r["exercicio"], L.semente("semana-4", r["matricula"]))
        assert r["gabarito"] == v.resposta_txt and r["versao"] == L.rotulo_versao(r["exercicio"], L.semente("semana-4", r["matricula"]))
        assert v.enunciado in gab
        if r["matricula"] == "B2":
            assert v.enunciado in html and f"versão {r['versao']}." in html
        assert float(r["tolerancia"]) > 0 or v.tipo in ("inteiro", "token", "escolha")
    links = list(csv.DictReader((p / "links.csv").open()))
    assert [r["matricula"] for r in links] == ["A1", "B2", "C3"] and L.ler_link(links[1]["link"])["m"] == "B2"


def test_uma_rodada_nova_apaga_a_anterior(tmp_path):
    escrever("semana-4", TURMA, "", True, tmp_path)
    p = escrever("semana-4", TURMA[:1], "tokens", True, tmp_path)
    assert sorted(x.name for x in (p / "alunos").iterdir()) == ["A1.html"]


def test_a_turma_em_csv():
    t = ler_turma("\ufeffNome;Matricula\nAna Souza;A1\n\n Jose\u0301 ; B2 \n")  # BOM, sem acento, NFD, espaços
    assert t == [("Ana Souza", "A1"), ("José", "B2")]
    assert ler_turma("matrícula,nome\nA1,\"Souza, Ana\"\n") == [("Souza, Ana", "A1")]
    assert ler_turma("nome\tmatrícula\nAna\tA1\n") == [("Ana", "A1")]
    with pytest.raises(Invalida, match=r"linha 4: a matrícula A1 já apareceu na linha 2"):
        ler_turma("nome;matrícula\nAna;A1\nBia;B2\nAna de novo;A1\n")
    with pytest.raises(Invalida, match=r"linha 2: A matrícula «» .*\nlinha 3: A matrícula «<script>»"):
        ler_turma("nome;matrícula\nSem;\nX;<script>\n")
    with pytest.raises(Invalida, match="cabeçalho precisa das colunas"):
        ler_turma("Ana;A1\n")
    with pytest.raises(Invalida, match="vazio"):
        ler_turma("\n  \n")
    with pytest.raises(Invalida, match="nenhum aluno"):
        ler_turma("nome;matrícula\n")
    assert turma_rapida(3) == [("Aluno 1", "1"), ("Aluno 2", "2"), ("Aluno 3", "3")]
    assert turma_rapida(12)[0] == ("Aluno 1", "01")
    for ruim in (0, 1000):
        with pytest.raises(Invalida, match="ALUNOS"):
            turma_rapida(ruim)


def test_a_linha_de_comando_diz_o_erro_em_portugues(tmp_path, capsys):
    turma = tmp_path / "t.csv"
    turma.write_bytes("nome;matrícula\nJoão;J1\n".encode("cp1252"))  # uma planilha do Excel no Windows
    main(["--lista", "s1", "--turma", str(turma), "--exercicios", "tokens-1", "--saida", str(tmp_path), "--versoes", "0"])
    assert "1 lista," in capsys.readouterr().out
    assert "João" in (tmp_path / "s1" / "alunos" / "J1.html").read_text()
    for args, msg in [(["--turma", str(tmp_path / "nada.csv")], "Não achei o arquivo da turma"),
                      (["--exercicios", "mascara"], "não é uma página"), (["--conferir", "talvez"], "CONFERIR"),
                      (["--lista", "Semana 4"], "nome da lista")]:
        with pytest.raises(SystemExit, match=msg):
            main(["--alunos", "2", "--saida", str(tmp_path), "--versoes", "0", *args])
