"""HTML válido onde o Nu HTML checker reclamava (issue 49).

- Nenhum <style> no corpo das páginas: o de reserva dos diagramas (livro.diagramas, para os
  notebooks) sai do corpo no site (livro_ext.tema.linhas), onde vale o diagramas.css do <head>.
- O index.html da raiz redireciona em HTML completo, com o ícone do livro (sem ele o
  navegador pedia um /favicon.ico que não existe).
"""
import re

from livro import diagramas
from livro_ext.tema import linhas


def test_o_diagrama_ainda_leva_o_estilo_de_reserva_para_o_notebook():
    html = diagramas.voce_esta_aqui(3)._repr_html_()
    assert "<style>:where(.lv-" in html
    assert "<style" not in linhas.sem_estilo_de_reserva(html)


def test_recuo_de_continuacao_e_vetores_partiveis():
    assert linhas.recuo('<span class="n">x</span> = 1  <span class="c1"># um comentário</span>', True) == 9
    assert linhas.recuo('    <span class="k">return</span> <span class="n">y</span>', True) == 8
    assert linhas.recuo('  T = 0,5: ␣telhado 0,761', False) == 4
    assert linhas.vetores_partiveis('<td><p>[0;\xa0-2;\xa0<b>1</b>]</p></td>') == \
        '<td><p>[0;\xa0<wbr>-2;\xa0<wbr><b>1</b>]</p></td>'
    assert linhas.sem_estilo_de_reserva('<div><style>:where(.lv-svg){x:1}</style><svg></svg></div>') == \
        '<div><svg></svg></div>'


def test_quebra_cada_linha_num_span_com_o_recuo():
    # o comentário depois de um código comprido: o resto volta na coluna 16, não sob o comentário
    longa = '<span class="n">valores_de_cada_posicao</span> <span class="o">=</span> 0  <span class="c1"># x</span>'
    assert linhas.recuo(longa, True) == 16
    # uma saída (sem realce): 2 colunas além do recuo; o "\n" fica fora do span, e o do fim também
    saida = '<div class="highlight"><pre><span></span>  T = 0,5\nfim\n</pre></div>'
    assert linhas.quebrar(saida) == ('<div class="highlight"><pre><span class="lc-l" style="--r:4ch"><span></span>'
                                     '  T = 0,5</span>\n<span class="lc-l" style="--r:2ch">fim</span>\n</pre></div>')


def test_nenhum_style_no_corpo(build):
    com_style = []
    for pagina in sorted((build / "html" / "book").glob("*.html")):
        texto = pagina.read_text(encoding="utf-8")
        corpo = texto[texto.index("<body"):]
        if re.search(r"<style\b", corpo):
            com_style.append(pagina.name)
    assert com_style == []


def test_raiz_redireciona_com_icone(build):
    raiz = (build / "html" / "index.html").read_text(encoding="utf-8")
    assert raiz.startswith("<!DOCTYPE html>")
    assert '<html lang="pt-BR">' in raiz and "<title>" in raiz
    assert 'http-equiv="Refresh" content="0; url=book/index.html"' in raiz
    icone = re.search(r'<link rel="icon" href="([^"]+)"', raiz)
    assert icone and (build / "html" / icone.group(1)).is_file()


def test_bibliografia_em_ordem_com_autores_coletivos(build):
    """Autores coletivos ({Gemma Team}) e em minúscula (nostalgebraist) no lugar do alfabeto,
    não depois de Zhang (a "{" do .bib vinha depois do "z")."""
    texto = (build / "html" / "book" / "referencias.html").read_text(encoding="utf-8")
    itens = [re.sub(r"^\[\d+\]\s*", "", re.sub(r"<[^>]+>", "", i).strip())
             for i in re.findall(r'role="listitem">(.*?)</div>', texto, re.S)]
    assert len(itens) > 30
    # a posição do 1º item cujo 1º autor tem esse nome
    pos = {nome: next(k for k, i in enumerate(itens) if nome in i.split(",")[0].split(" e ")[0])
           for nome in ["DeepSeek-AI", "Devlin", "Gemma Team", "Geva", "nostalgebraist", "Olsson", "Team OLMo",
                        "Touvron", "Zhang"]}
    assert pos["DeepSeek-AI"] < pos["Devlin"] < pos["Gemma Team"] < pos["Geva"]
    assert pos["nostalgebraist"] < pos["Olsson"] and pos["Team OLMo"] < pos["Touvron"] < pos["Zhang"]
