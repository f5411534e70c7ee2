"""make listas: uma lista por aluno, com os seus números, e o gabarito; a mesma semente, os mesmos bytes."""

from livro.exercicios import EXERCICIOS, versao
from livro.exercicios.listas import escrever, semente_do_aluno


def _bytes(pasta):
    return {p.name: p.read_bytes() for p in sorted(pasta.iterdir())}


def test_listas_reprodutiveis_e_por_aluno(tmp_path):
    a = escrever(3, 2026, tmp_path / "a")
    escrever(3, 2026, tmp_path / "b")
    assert [p.name for p in a] == ["aluno-1.html", "aluno-2.html", "aluno-3.html", "gabarito.html"]
    assert _bytes(tmp_path / "a") == _bytes(tmp_path / "b")
    escrever(3, 2027, tmp_path / "c")
    assert _bytes(tmp_path / "a")["aluno-1.html"] != _bytes(tmp_path / "c")["aluno-1.html"]
    l1, l2 = (tmp_path / "a" / "aluno-1.html").read_text(), (tmp_path / "a" / "aluno-2.html").read_text()
    assert l1 != l2
    # cada exercício, com a versão do aluno, e sem a resposta na lista do aluno
    for id_ in EXERCICIOS:
        s = semente_do_aluno(2026, 1, id_)
        v = versao(id_, s)
        assert f"Exercício {id_}, versão {s}:" in l1
        assert v.enunciado in l1
    assert 'class="resposta"' not in l1
    gab = (tmp_path / "a" / "gabarito.html").read_text()
    assert gab.count('class="resposta"') == 3 * len(EXERCICIOS)
    v = versao("tokens-1", semente_do_aluno(2026, 2, "tokens-1"))
    assert f"<strong>{v.resposta_txt}</strong>" in gab


def test_turma_menor_apaga_as_listas_velhas(tmp_path):
    escrever(12, 1, tmp_path)
    escrever(2, 1, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aluno-1.html", "aluno-2.html", "gabarito.html"]
