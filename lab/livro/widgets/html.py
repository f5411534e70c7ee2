"""As peças de HTML dos widgets e a regra de escape.

A regra, num lugar só:

- todo texto que pode ter vindo do leitor (o que ele digitou, um token, uma frase,
  uma mensagem de erro que cita a entrada) passa por `escapa` antes de entrar no HTML,
  em conteúdo **e** em atributos (`escapa` escapa & < > " ');
- os números entram já formatados por `formato.py`, que só produz dígitos, vírgula,
  ponto, sinais e símbolos fixos (nenhum `<`, `&` ou aspas);
- rótulos, títulos e legendas fixos do código (com `<strong>`, `<code>`, `&lt;`)
  entram como estão: são HTML escrito por nós;
- `matriz` e `barras` escapam rótulos de linha e coluna e os textos das barras; as
  células de `matriz` são números formatados (`formata`) ou textos já escapados;
- as mensagens de erro (`{"erro": ...}`) são texto puro: a página as põe com
  `textContent`, nunca como HTML.
"""
import math

from livro import brinquedo as b
from livro.formato import celula

_ESCAPA = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def escapa(s):
    """O mesmo que html.escape(s, quote=True), sem importar `html` no navegador."""
    return str(s).translate(_ESCAPA)


def subscrito(s):
    """Índices como subscrito: 'x' + '23' -> x₂₃ (só dígitos)."""
    return str(s).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))



# ---------------------------------------------------------------------------
# Peças de HTML
# ---------------------------------------------------------------------------

def formata(M, casas=3):
    """Cada célula como o leitor a vê."""
    return [[celula(x, casas) for x in linha] for linha in M]


def matriz(M, casas=3, linhas=None, cols=None, foco=None, mudou=None, calor=False,
           legenda=None, mascara=None, txt=None):
    """Uma matriz como tabela. foco: linha destacada; mudou: células (i, j) que mudaram;
    calor: fundo proporcional ao valor (pesos de 0 a 1); mascara: células bloqueadas;
    txt: as células já formatadas (senão, `casas` decimais)."""
    txt = formata(M, casas) if txt is None else txt
    out = ['<table class="lw-matriz">']
    if legenda:
        out.append(f"<caption>{legenda}</caption>")
    if cols:
        out.append("<thead><tr>" + ("<td></td>" if linhas else "")
                   + "".join(f'<th scope="col">{escapa(c)}</th>' for c in cols) + "</tr></thead>")
    out.append("<tbody>")
    for i, linha in enumerate(M):
        cls = ' class="lw-foco"' if foco == i else ""
        out.append(f"<tr{cls}>")
        if linhas:
            out.append(f'<th scope="row">{escapa(linhas[i])}</th>')
        for j, x in enumerate(linha):
            c = []
            estilo = ""
            if mudou and (i, j) in mudou:
                c.append("lw-mudou")
            if (mascara and mascara(i, j)) or x == -math.inf:
                c.append("lw-mascarado")
            elif calor:
                estilo = f' style="--p:{max(0.0, min(1.0, x)):.3f}"'
                c.append("lw-calor")
            cc = f' class="{" ".join(c)}"' if c else ""
            out.append(f"<td{cc}{estilo}>{txt[i][j]}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def barras(itens, cabecalho):
    """Barras horizontais: itens = [(rótulo, fração 0..1, [textos simples], classe)]."""
    out = ['<table class="lw-barras"><thead><tr>']
    out += [f'<th scope="col">{escapa(h)}</th>' for h in cabecalho]
    out.append("</tr></thead><tbody>")
    for rotulo, frac, textos, classe in itens:
        cls = f' class="{classe}"' if classe else ""
        out.append(f'<tr{cls}><th scope="row">{escapa(rotulo)}</th>'
                   f'<td class="lw-barra-cel"><span class="lw-barra" style="--p:{max(0.0, min(1.0, frac)):.4f}">'
                   f"</span></td>")
        out += [f"<td>{escapa(t)}</td>" for t in textos]
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def campo_texto(nome, rotulo, valor, largura=6, dica=None):
    d = f' title="{escapa(dica)}"' if dica else ""
    return (f'<label class="lw-campo"{d}><span>{rotulo}</span>'
            f'<input type="text" name="{nome}" value="{escapa(valor)}" size="{largura}" '
            f'inputmode="decimal" autocomplete="off" spellcheck="false" disabled></label>')


def campo_lista(nome, rotulo, opcoes, valor, acao=None):
    a = f' data-acao="{acao}"' if acao else ""
    ops = "".join(f'<option value="{escapa(v)}"{" selected" if str(v) == str(valor) else ""}>{escapa(t)}</option>'
                  for v, t in opcoes)
    return (f'<label class="lw-campo"><span>{rotulo}</span>'
            f'<select name="{nome}"{a} disabled>{ops}</select></label>')


def campo_marca(nome, rotulo, ligado):
    return (f'<label class="lw-campo lw-marca"><input type="checkbox" name="{nome}"'
            f'{" checked" if ligado else ""} disabled><span>{rotulo}</span></label>')


def campo_faixa(nome, rotulo, valor, minimo, maximo, passo, espelho=None):
    esp = f' data-espelho="{espelho}"' if espelho else ""
    return (f'<label class="lw-campo lw-faixa"><span>{rotulo}</span>'
            f'<input type="range" name="{nome}" min="{minimo}" max="{maximo}" step="{passo}" '
            f'value="{valor}"{esp} disabled></label>')


def radios(nome, rotulo, opcoes, valor):
    itens = "".join(
        f'<label class="lw-radio"><input type="radio" name="{nome}" value="{escapa(v)}"'
        f'{" checked" if str(v) == str(valor) else ""} disabled><span>{escapa(t)}</span></label>'
        for v, t in opcoes)
    return f'<fieldset class="lw-grupo"><legend>{rotulo}</legend>{itens}</fieldset>'


def botao(texto, acao=None, principal=False):
    if acao is None:
        return f'<button type="submit" class="lw-botao lw-principal" disabled>{texto}</button>'
    cls = "lw-botao lw-principal" if principal else "lw-botao"
    return f'<button type="button" class="{cls}" data-acao="{acao}" disabled>{texto}</button>'


def oculto(nome, valor):
    return f'<input type="hidden" name="{nome}" value="{escapa(valor)}">'


def linha(*pecas, classe="lw-controles"):
    return f'<div class="{classe}">' + "".join(pecas) + "</div>"


def nota(texto, classe="lw-nota"):
    return f'<p class="{classe}">{texto}</p>'


def tok(i):
    return b.VOCAB[i]
