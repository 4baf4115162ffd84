/* Output safety for strings that come from packets (application names,
 * anything a peer could choose) and from the command line (file names).
 * Valid printable UTF-8 passes through; every control character, DEL, C1
 * control, invalid byte, and the Unicode bidi/line controls that can make
 * text display differently from what it is, is shown as an escape. */
#include "report/render.h"

#include <string.h>

static void hex_byte(GString *buf, unsigned char c)
{
	g_string_append_printf(buf, "\\x%02X", c);
}

/* Format characters that reorder or break displayed text. */
static bool is_display_control(gunichar cp)
{
	return cp == 0x061C || cp == 0x200E || cp == 0x200F || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
}

static void escape(GString *buf, const char *s, bool markdown)
{
	if (!s)
		return;
	size_t n = strlen(s);
	size_t i = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			if (c < 0x20 || c == 0x7F) {
				hex_byte(buf, c);
			} else if (markdown && c == '<') {
				g_string_append(buf, "&lt;");
			} else if (markdown && c == '>') {
				g_string_append(buf, "&gt;");
			} else if (markdown && c == '&') {
				g_string_append(buf, "&amp;");
			} else if (markdown && strchr("\\`*_[]!|~", c)) {
				/* inline-significant characters; escaped strings never
				 * start a line, so line-start syntax (#, -, 1.) is inert */
				g_string_append_c(buf, '\\');
				g_string_append_c(buf, (char)c);
			} else {
				g_string_append_c(buf, (char)c);
			}
			i++;
			continue;
		}
		gunichar cp = g_utf8_get_char_validated(s + i, (gssize)(n - i));
		if (cp == (gunichar)-1 || cp == (gunichar)-2) {
			hex_byte(buf, c);
			i++;
			continue;
		}
		size_t len = (size_t)(g_utf8_next_char(s + i) - (s + i));
		if (cp >= 0x80 && cp <= 0x9F) {
			for (size_t k = 0; k < len; k++)
				hex_byte(buf, (unsigned char)s[i + k]);
		} else if (is_display_control(cp)) {
			g_string_append_printf(buf, "\\u{%04X}", (unsigned)cp);
		} else {
			g_string_append_len(buf, s + i, (gssize)len);
		}
		i += len;
	}
}

void pd_escape_text(GString *buf, const char *s)
{
	escape(buf, s, false);
}

void pd_escape_markdown(GString *buf, const char *s)
{
	escape(buf, s, true);
}
