# The HTML report's page: user/render/html/page.html becomes the C string sb_html_page in
# $(BUILD)/html_page.h, so the page stays a real HTML file and the binary needs no asset.
#
# Each line becomes one string literal; backslashes, quotes and '?' (trigraphs) are escaped.

$(BUILD)/html_page.h: user/render/html/page.html user/render/html/html.mk
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q){ echo '/* Generated from user/render/html/page.html by user/render/html/html.mk; do not edit. */'; \
		echo 'static const char sb_html_page[] ='; \
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/\t"/' -e 's/$$/\\n"/' $<; \
		echo ';'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/user/render/html.o: $(BUILD)/html_page.h
