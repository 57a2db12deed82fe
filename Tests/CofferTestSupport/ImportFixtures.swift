/// Golden import files, written by hand from each format's documented layout, shared by the
/// parser tests (CofferCoreTests) and the command tests (CofferCLITests). Each has quotes, commas
/// and newlines inside fields, non-ASCII text and empty fields.
public enum ImportFixtures {
    public static let totpURI = "otpauth://totp/X?secret=JBSWY3DPEHPK3PXP"

    /// Firefox quotes every non-empty field; times are milliseconds since the epoch.
    public static let firefox = """
        "url","username","password","httpRealm","formActionOrigin","guid","timeCreated","timeLastUsed","timePasswordChanged"
        "https://café.example","ünï","pa,ss""word",,"https://café.example","{0a1b}","1600000000000","1700000000000","1650000000000"
        "https://日本.example:8443","","multi
        line password","Realm 日本","https://login.日本.example","{0a1c}","1600000000123","",""

        """

    /// Chrome quotes only where needed; the last row has empty trailing fields and no final newline.
    public static let chrome = """
        name,url,username,password,note
        café.example,https://café.example/login,ünï,"p,w""1","line one
        line two, with a comma"
        日本,https://日本.example/,,,
        """

    public static let keepassxc = """
        "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
        "Root/Work/Servers","Café ☕","ünï","pa""ss,word","https://café.example","line 1
        line 2","\(totpURI)","0","2024-02-03T04:05:06Z","2023-01-02T03:04:05Z"
        "Root","日本","","","","","","12","2024-02-03T04:05:06Z","2023-01-02T03:04:05Z"

        """

    /// 1Password 8's columns; tags separated by commas inside one field.
    public static let onePassword = """
        Title,Url,Username,Password,OTPAuth,Favorite,Archived,Tags,Notes
        "Café, ☕",https://café.example,ünï,"pw""1",\(totpURI),true,false,"Work,東京","note
        two"
        日本,,,,,false,true,,

        """

    /// The XML `keepassxc-cli export --format xml` writes (KDBX 4: times as base64 seconds since
    /// year 1), hand-written: nested groups, an entry with every kind of string, tags, and three past
    /// versions (one differing only in its title); an entry with KDBX 3.1's ISO times, attachments
    /// in `Meta/Binaries` (one plain and split over lines, one gzipped), an expiry and Auto-Type; two
    /// entries in the recycle bin.
    public static let keepassxcXML = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <KeePassFile>
        	<Meta>
        		<Generator>KeePassXC</Generator>
        		<RecycleBinEnabled>True</RecycleBinEnabled>
        		<RecycleBinUUID>EjYCGJ+aQ6Gacwwqm9RpcQ==</RecycleBinUUID>
        		<Binaries>
        			<Binary ID="0">aGVsbG8gd29y
        			bGQh</Binary>
        			<Binary ID="1" Compressed="True">H4sIAAAAAAAC/0tUyMsvSdVRSK/KLChITeECAGMrtcwQAAAA</Binary>
        		</Binaries>
        	</Meta>
        	<Root>
        		<Group>
        			<UUID>LKDSuvNTQ4isoenLisRzXA==</UUID>
        			<Name>Passwords</Name>
        			<Group>
        				<UUID>hexfxDuVSFKe7x2z51Q9Bg==</UUID>
        				<Name>Work</Name>
        				<Group>
        					<UUID>AAAAAAAAAAAAAAAAAAAAAQ==</UUID>
        					<Name>Servers</Name>
        					<Entry>
        						<UUID>/nUVBIY8Rlm/unoD8+avvQ==</UUID>
        						<IconID>0</IconID>
        						<Tags>blue;green</Tags>
        						<Times>
        							<LastModificationTime>2XjK3Q4AAAA=</LastModificationTime>
        							<CreationTime>pUBE2w4AAAA=</CreationTime>
        							<LastAccessTime>gHwG3w4AAAA=</LastAccessTime>
        							<ExpiryTime>pUBE2w4AAAA=</ExpiryTime>
        							<Expires>False</Expires>
        						</Times>
        						<String><Key>Notes</Key><Value>line 1
        line 2</Value></String>
        						<String><Key>Password</Key><Value ProtectInMemory="True">pa"ss&lt;word&gt;&amp;</Value></String>
        						<String><Key>Title</Key><Value>Café ☕</Value></String>
        						<String><Key>URL</Key><Value>https://café.example</Value></String>
        						<String><Key>UserName</Key><Value>ünï</Value></String>
        						<String><Key>otp</Key><Value ProtectInMemory="True">otpauth://totp/X?secret=JBSWY3DPEHPK3PXP&amp;period=30</Value></String>
        						<String><Key>KP2A_URL</Key><Value>https://login.café.example</Value></String>
        						<String><Key>PIN</Key><Value ProtectInMemory="True">1234</Value></String>
        						<String><Key>Recovery email</Key><Value>r@example.org</Value></String>
        						<AutoType><Enabled>True</Enabled><DataTransferObfuscation>0</DataTransferObfuscation><DefaultSequence/></AutoType>
        						<History>
        							<Entry>
        								<Times><LastModificationTime>crJP3Q4AAAA=</LastModificationTime><CreationTime>pUBE2w4AAAA=</CreationTime></Times>
        								<String><Key>Notes</Key><Value>line 1</Value></String>
        								<String><Key>Password</Key><Value ProtectInMemory="True">old-pw</Value></String>
        								<String><Key>Title</Key><Value>Café</Value></String>
        								<String><Key>URL</Key><Value>https://café.example</Value></String>
        								<String><Key>UserName</Key><Value>ünï</Value></String>
        								<String><Key>KP2A_URL</Key><Value>https://login.café.example</Value></String>
        								<String><Key>PIN</Key><Value ProtectInMemory="True">0000</Value></String>
        							</Entry>
        							<Entry>
        								<Times><LastModificationTime>v0133Q4AAAA=</LastModificationTime><CreationTime>pUBE2w4AAAA=</CreationTime></Times>
        								<String><Key>Notes</Key><Value>line 1
        line 2</Value></String>
        								<String><Key>Password</Key><Value ProtectInMemory="True">mid-pw</Value></String>
        								<String><Key>Title</Key><Value>Café</Value></String>
        								<String><Key>URL</Key><Value>https://café.example</Value></String>
        								<String><Key>UserName</Key><Value>ünï</Value></String>
        								<String><Key>otp</Key><Value ProtectInMemory="True">otpauth://totp/X?secret=JBSWY3DPEHPK3PXP&amp;period=30</Value></String>
        								<String><Key>KP2A_URL</Key><Value>https://login.café.example</Value></String>
        								<String><Key>PIN</Key><Value ProtectInMemory="True">1234</Value></String>
        								<String><Key>Recovery email</Key><Value>r@example.org</Value></String>
        							</Entry>
        							<Entry>
        								<Times><LastModificationTime>ADah3Q4AAAA=</LastModificationTime><CreationTime>pUBE2w4AAAA=</CreationTime></Times>
        								<String><Key>Notes</Key><Value>line 1
        line 2</Value></String>
        								<String><Key>Password</Key><Value ProtectInMemory="True">pa"ss&lt;word&gt;&amp;</Value></String>
        								<String><Key>Title</Key><Value>Café (old title)</Value></String>
        								<String><Key>URL</Key><Value>https://café.example</Value></String>
        								<String><Key>UserName</Key><Value>ünï</Value></String>
        								<String><Key>otp</Key><Value ProtectInMemory="True">otpauth://totp/X?secret=JBSWY3DPEHPK3PXP&amp;period=30</Value></String>
        								<String><Key>KP2A_URL</Key><Value>https://login.café.example</Value></String>
        								<String><Key>PIN</Key><Value ProtectInMemory="True">1234</Value></String>
        								<String><Key>Recovery email</Key><Value>r@example.org</Value></String>
        							</Entry>
        						</History>
        					</Entry>
        				</Group>
        			</Group>
        			<Entry>
        				<UUID>rx8HER4PRaGjwtQvB1FInA==</UUID>
        				<OverrideURL>cmd://firefox {URL}</OverrideURL>
        				<Tags/>
        				<Times>
        					<LastModificationTime>2024-02-03T04:05:06Z</LastModificationTime>
        					<CreationTime>2023-06-07T08:09:10Z</CreationTime>
        					<LastAccessTime>2024-02-03T04:05:06Z</LastAccessTime>
        					<ExpiryTime>2025-01-01T00:00:00Z</ExpiryTime>
        					<Expires>True</Expires>
        				</Times>
        				<String><Key>Title</Key><Value>日本</Value></String>
        				<String><Key>UserName</Key><Value/></String>
        				<String><Key>Password</Key><Value ProtectInMemory="True"/></String>
        				<String><Key>Security question</Key><Value>Name of the first pet?</Value></String>
        				<String><Key>Answer</Key><Value ProtectInMemory="True">Rex</Value></String>
        				<Binary><Key>id.pdf</Key><Value Ref="0"/></Binary>
        				<Binary><Key>note.txt</Key><Value Ref="1"/></Binary>
        				<AutoType>
        					<Enabled>True</Enabled>
        					<DefaultSequence>{USERNAME}{ENTER}</DefaultSequence>
        					<Association><Window>日本 - Firefox</Window><KeystrokeSequence/></Association>
        				</AutoType>
        				<History/>
        			</Entry>
        			<Group>
        				<UUID>EjYCGJ+aQ6Gacwwqm9RpcQ==</UUID>
        				<Name>Recycle Bin</Name>
        				<Entry>
        					<String><Key>Title</Key><Value>Deleted</Value></String>
        				</Entry>
        				<Group>
        					<UUID>AAAAAAAAAAAAAAAAAAAAAg==</UUID>
        					<Name>Old group</Name>
        					<Entry><String><Key>Title</Key><Value>Deleted with its group</Value></String></Entry>
        				</Group>
        			</Group>
        		</Group>
        		<DeletedObjects/>
        	</Root>
        </KeePassFile>

        """

    /// Every item type: a login with URIs, TOTP, custom fields and password history; a secure
    /// note; a card; an identity.
    public static let bitwarden = """
        {
          "encrypted": false,
          "folders": [{"id": "f1", "name": "Work/Servers"}, {"id": "f2", "name": "東京"}],
          "items": [
            {"id": "i1", "organizationId": null, "folderId": "f1", "type": 1, "reprompt": 0,
             "name": "Café ☕", "notes": "login note, with \\"quotes\\"\\nand a second line", "favorite": true,
             "fields": [{"name": "PIN", "value": "1234", "type": 1}, {"name": "colour", "value": "blue", "type": 0}],
             "login": {"uris": [{"match": null, "uri": "https://café.example"}, {"match": 3, "uri": "https://login.café.example"}],
                       "username": "ünï", "password": "new-pw", "totp": "\(totpURI)", "fido2Credentials": []},
             "passwordHistory": [{"lastUsedDate": "2023-05-01T10:00:00.000Z", "password": "older-pw"},
                                 {"lastUsedDate": "2024-05-01T10:00:00.000Z", "password": "old-pw"}],
             "collectionIds": null, "revisionDate": "2024-06-01T12:00:00.123Z", "creationDate": "2022-01-01T00:00:00.000Z"},
            {"id": "i2", "folderId": "f2", "type": 2, "name": "日本 note", "notes": "secret note", "favorite": false,
             "secureNote": {"type": 0}, "revisionDate": "2024-01-01T00:00:00.000Z", "creationDate": "2024-01-01T00:00:00.000Z"},
            {"id": "i3", "folderId": null, "type": 3, "name": "Visa", "notes": null, "favorite": false,
             "card": {"cardholderName": "Zoé Doe", "brand": "Visa", "number": "4111111111111111", "expMonth": "12",
                      "expYear": "2030", "code": "123"}},
            {"id": "i4", "folderId": null, "type": 4, "name": "Me", "notes": "", "favorite": false,
             "identity": {"title": "Ms", "firstName": "Zoé", "lastName": "Doe", "email": "zoe@example.org", "phone": null}}
          ]
        }
        """
}
