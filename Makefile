# Build and install registerd on a lane machine.
#
#   make                      release build of registerd and register-cli
#   sudo make install         install under PREFIX (default /usr/local), see README "Install"
#   sudo make uninstall       remove what install put there (not /etc/registerd, not the data)
#   make check-install        install into a temporary DESTDIR and check the tree (CI runs it)
#
# PREFIX and DESTDIR work as packagers expect: `make install DESTDIR=/tmp/pkg PREFIX=/usr`
# stages a tree for a package without touching the system.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
DATADIR ?= $(PREFIX)/share/registerd
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
# registerd looks for its configuration in /etc/registerd whatever the prefix.
SYSCONFDIR ?= /etc

SWIFT ?= swift
# The Swift runtime and Dispatch are linked in (--static-swift-stdlib): the installed programs
# need only the C and C++ libraries every Linux system has, not a Swift toolchain at the path
# of the machine that built them. check-install proves it (readelf, and a run with the
# toolchain hidden).
SWIFTFLAGS ?= -c release --static-swift-stdlib
BUILDDIR := $(shell $(SWIFT) build $(SWIFTFLAGS) --show-bin-path 2>/dev/null)
GENERATED := .build/generated

INSTALL ?= install

.PHONY: all build generated install uninstall check-install clean-generated

all: build

build:
	$(SWIFT) build $(SWIFTFLAGS) --product registerd
	$(SWIFT) build $(SWIFTFLAGS) --product register-cli

# The CLI's man page and completions come from its own command table (one source), the
# units get the installed path of registerd.
generated: build
	mkdir -p $(GENERATED)
	$(BUILDDIR)/register-cli help --man > $(GENERATED)/register-cli.1
	$(BUILDDIR)/register-cli completion bash > $(GENERATED)/register-cli.bash
	$(BUILDDIR)/register-cli completion zsh > $(GENERATED)/_register-cli
	sed 's|@SBINDIR@|$(SBINDIR)|g' contrib/systemd/registerd.service > $(GENERATED)/registerd.service
	sed 's|@SBINDIR@|$(SBINDIR)|g' contrib/systemd/registerd.socket > $(GENERATED)/registerd.socket

install: generated
	$(INSTALL) -d -m 755 $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(SYSUSERSDIR)
	$(INSTALL) -m 755 $(BUILDDIR)/registerd $(DESTDIR)$(SBINDIR)/registerd
	$(INSTALL) -m 755 $(BUILDDIR)/register-cli $(DESTDIR)$(BINDIR)/register-cli
	$(INSTALL) -m 644 man/registerd.8 $(DESTDIR)$(MANDIR)/man8/registerd.8
	$(INSTALL) -m 644 $(GENERATED)/register-cli.1 $(DESTDIR)$(MANDIR)/man1/register-cli.1
	$(INSTALL) -m 644 $(GENERATED)/register-cli.bash $(DESTDIR)$(BASHCOMPDIR)/register-cli
	$(INSTALL) -m 644 $(GENERATED)/_register-cli $(DESTDIR)$(ZSHCOMPDIR)/_register-cli
	$(INSTALL) -m 644 $(GENERATED)/registerd.service $(DESTDIR)$(SYSTEMDUNITDIR)/registerd.service
	$(INSTALL) -m 644 $(GENERATED)/registerd.socket $(DESTDIR)$(SYSTEMDUNITDIR)/registerd.socket
	$(INSTALL) -m 644 contrib/systemd/registerd.sysusers $(DESTDIR)$(SYSUSERSDIR)/registerd.conf
	@# The example store is an example: it stays here, and never becomes the lane's catalog in
	@# $(SYSCONFDIR)/registerd by itself. The directory is made (empty): registerd run there by hand
	@# finds it is installed, and serves once `register-cli setup` is run.
	$(INSTALL) -d -m 755 $(DESTDIR)$(SYSCONFDIR)/registerd
	$(INSTALL) -m 644 Data/products.json $(DESTDIR)$(DATADIR)/products.json
	$(INSTALL) -m 644 contrib/store.json $(DESTDIR)$(DATADIR)/store.json
	$(INSTALL) -m 644 contrib/systemd/registerd-network-printer.conf \
		$(DESTDIR)$(DATADIR)/registerd-network-printer.conf
	$(INSTALL) -m 644 contrib/systemd/registerd-usb-printer.conf \
		$(DESTDIR)$(DATADIR)/registerd-usb-printer.conf
	@# On the machine itself (not when staging a package) create the socket's group now; a
	@# package does this in its post-install step.
	@if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null 2>&1; then \
		systemd-sysusers $(SYSUSERSDIR)/registerd.conf; \
	fi

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/registerd $(DESTDIR)$(BINDIR)/register-cli \
		$(DESTDIR)$(MANDIR)/man8/registerd.8 $(DESTDIR)$(MANDIR)/man1/register-cli.1 \
		$(DESTDIR)$(BASHCOMPDIR)/register-cli $(DESTDIR)$(ZSHCOMPDIR)/_register-cli \
		$(DESTDIR)$(SYSTEMDUNITDIR)/registerd.service $(DESTDIR)$(SYSTEMDUNITDIR)/registerd.socket \
		$(DESTDIR)$(SYSUSERSDIR)/registerd.conf \
		$(DESTDIR)$(DATADIR)/products.json $(DESTDIR)$(DATADIR)/store.json \
		$(DESTDIR)$(DATADIR)/registerd-network-printer.conf \
		$(DESTDIR)$(DATADIR)/registerd-usb-printer.conf
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null
	@echo "left $(SYSCONFDIR)/registerd (the store's configuration), /var/lib/registerd (its journal) and the group register"

check-install:
	Scripts/check-install.sh

clean-generated:
	rm -rf $(GENERATED)
